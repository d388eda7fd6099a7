#include "core/model/param_table.hpp"

namespace proteus::model {

size_t ParamTable::add(std::string name, std::vector<int64_t> shape, Init init, double std, Decay decay) {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  ParamEntry e{std::move(name), std::move(shape), total_, n, init, std, decay == Decay::applied};
  entries_.push_back(std::move(e));
  total_ += n;
  return entries_.back().offset;
}

const ParamEntry* ParamTable::find(const std::string& name) const {
  for (const auto& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace proteus::model
