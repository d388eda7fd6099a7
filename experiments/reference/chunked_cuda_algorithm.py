#!/usr/bin/env python3
"""The packed chunked algorithm of kernels/memory_rule_chunked.cu, step for step and by the same
names (Q, K, Qg, Kd, Kb, Vb, MB, MA, Tinv, Ub, Wk, U, Hc; dU0 = MB^T dO, Y = Qg^T dO, dHe, dKt,
dQd, dMB, dW, dEd0, dA0, KH, dPB, dPA), in float64 torch, against autograd through the recurrent
definition (SPEC section 3, rows opened by a schedule, S_0 = 0). It checks the GPU kernels' math
(zero padding of a ragged chunk, masks by selection, the reverse state pass with Wk^T dU, the
per-step sums for dlog a and dbeta) on a machine without a GPU; it does not run the CUDA code.

    /usr/bin/python3 experiments/reference/chunked_cuda_algorithm.py     (exit 1 on a mismatch)
"""
import sys

import torch

torch.manual_seed(0)
dt = torch.float64


def recurrent(q,k,v,beta,a,rows,erase):
    """The definition, one step at a time: rows past rows[t] locked (per-row decay 1, never written)."""
    T,dk=k.shape; dv=v.shape[1]; S=torch.zeros(dk,dv,dtype=dt); out=[]
    for t in range(T):
        m=(torch.arange(dk)<rows[t]).to(dt)
        kt,qt=k[t]*m,q[t]*m
        dec=a[t]*m+(1-m)   # per key row (zero-state lemma makes this the scalar decay)
        if erase:
            corr=v[t]-a[t]*(S.T@kt)
            S=dec[:,None]*S+beta[t]*torch.outer(kt,corr)
        else:
            S=dec[:,None]*S+beta[t]*torch.outer(kt,v[t])
        out.append(S.T@qt)
    return torch.stack(out)
def chunked(q,k,v,beta,a,rows,erase,C,dO):
    """(o, dq, dk, dv, dbeta, da) as the CUDA kernels compute them: packed (chunks, C, width), padded."""
    T,dk=k.shape; dv=v.shape[1]; NC=(T+C-1)//C; P=NC*C
    def pad(x): return torch.cat([x,torch.zeros((P-T,)+x.shape[1:],dtype=dt)])
    mask=torch.stack([(torch.arange(dk)<rows[t]).to(dt) for t in range(T)])
    Q=pad(q*mask).view(NC,C,dk); K=pad(k*mask).view(NC,C,dk); V=pad(v).view(NC,C,dv)
    bt=pad(beta).view(NC,C); la=pad(torch.log(a)).view(NC,C); g=la.cumsum(1); gL=g[:,-1:]
    Qg=torch.exp(g)[...,None]*Q; Kd=torch.exp(gL-g)[...,None]*K; Kb=(bt*torch.exp(g))[...,None]*K; Vb=bt[...,None]*V
    tri=torch.tril(torch.ones(C,C,dtype=dt)); stri=torch.tril(torch.ones(C,C,dtype=dt),-1)
    D=torch.exp((g[:,:,None]-g[:,None,:]).clamp(max=0))
    MB=(Q@K.transpose(1,2))*D*tri; MA=(K@K.transpose(1,2))*D*stri
    Tinv=torch.linalg.inv(torch.eye(C,dtype=dt)+bt[...,None]*MA)
    if erase: Ub=Tinv@Vb; Wk=Tinv@Kb
    else: Ub=Vb.clone(); Wk=torch.zeros(NC,C,dk,dtype=dt)
    H=torch.zeros(dk,dv,dtype=dt); Hc=[]; U=torch.zeros(NC,C,dv,dtype=dt)
    for c in range(NC):
        Hc.append(H.clone()); U[c]=Ub[c]-Wk[c]@H; H=torch.exp(gL[c,0])*H+Kd[c].T@U[c]
    Hc=torch.stack(Hc)
    O=(Qg@Hc+MB@U).reshape(P,dv)[:T]
    dOp=pad(dO).view(NC,C,dv)
    dU=MB.transpose(1,2)@dOp; Y=Qg.transpose(1,2)@dOp
    dH=torch.zeros(dk,dv,dtype=dt); dHe=torch.zeros(NC,dk,dv,dtype=dt)
    for c in reversed(range(NC)):
        dHe[c]=dH; dU[c]=dU[c]+Kd[c]@dH; dH=torch.exp(gL[c,0])*dH+Y[c]-Wk[c].T@dU[c]
    dKt=U@dHe.transpose(1,2); dQd=dOp@Hc.transpose(1,2); dMB=dOp@U.transpose(1,2)
    dW=Tinv.transpose(1,2)@dU; dEd0=dW@Hc.transpose(1,2); dA0=dW@U.transpose(1,2); KH=K@Hc
    thr=(Kd*dKt).sum(-1); qd=(Qg*dQd).sum(-1); ZB=dMB*MB
    dg=-thr+qd+ZB.sum(2)-ZB.sum(1)
    state_term=torch.exp(gL[:,0])*(Hc*dHe).sum((1,2))
    if erase:
        res=(dW*(V-torch.exp(g)[...,None]*KH)).sum(-1)
        ed=(K*dEd0).sum(-1)
        dA=-dA0*stri
        dbeta=res+(dA*MA).sum(-1)
        ZA=bt[...,None]*dA*MA
        dg=dg-bt*torch.exp(g)*ed+ZA.sum(2)-ZA.sum(1)
        dPA=bt[...,None]*dA*D*stri
    else:
        dbeta=(dU*V).sum(-1); dPA=torch.zeros(NC,C,C,dtype=dt)
    dPB=dMB*D*tri
    dg[:,-1]+=thr.sum(1)+state_term
    dla=dg.flip(1).cumsum(1).flip(1)
    dQx=dPB@K; dKx=dPB.transpose(1,2)@Q+dPA.transpose(1,2)@K+dPA@K
    dq=torch.exp(g)[...,None]*dQd+dQx
    dk_=torch.exp(gL-g)[...,None]*dKt+dKx
    if erase: dk_=dk_-(bt*torch.exp(g))[...,None]*dEd0
    dv_=bt[...,None]*(dW if erase else dU)
    f=lambda x:x.reshape(P,-1)[:T]
    return O, f(dq)*mask, f(dk_)*mask, f(dv_), f(dbeta)[:,0], f(dla)[:,0]/a


def main():
    worst = 0.0
    for erase in (False, True):
        for C in (5, 16, 64):
            T, dk, dv = 37, 8, 6
            q = torch.randn(T, dk, dtype=dt) * 0.5
            k = torch.randn(T, dk, dtype=dt) * 0.5
            v = torch.randn(T, dv, dtype=dt)
            beta = torch.rand(T, dtype=dt) * 0.8 + 0.1
            a = torch.rand(T, dtype=dt) * 0.4 + 0.6
            dO = torch.randn(T, dv, dtype=dt)
            rows = [min(dk, 2 + t // 8) for t in range(T)]  # the open key rows grow, as under a schedule
            xs = [x.clone().requires_grad_() for x in (q, k, v, beta, a)]
            o = recurrent(*xs, rows, erase)
            (o * dO).sum().backward()
            got = chunked(q, k, v, beta, a, rows, erase, C, dO)
            errs = [(got[0] - o).abs().max().item()] + [(x - y.grad).abs().max().item() for x, y in zip(got[1:], xs)]
            worst = max(worst, *errs)
            print(f"{'delta' if erase else 'linear':<6} C={C:<3} max |error| o dq dk dv dbeta da:",
                  " ".join(f"{e:.1e}" for e in errs))
    print(f"worst {worst:.1e}")
    sys.exit(0 if worst < 1e-12 else 1)


if __name__ == "__main__":
    main()
