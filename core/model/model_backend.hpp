// The backend a model runs on: the device the run asked for, or the CPU when that device's backend
// refuses the model's memory rule (a rule its kernels do not compute at the model's shape, or one
// its self-check refused: Backend::rule_refused), with one line saying so, as the registry does
// for a missing device. Per op, like the self-check's fallback: the rule is asked about, not the
// device as a whole.
#pragma once
#include <string>

#include "core/backend/registry.hpp"
#include "core/config/config.hpp"

namespace proteus::model {

backend::BackendChoice make_model_backend(const config::RunConfig& cfg);

}  // namespace proteus::model
