"""The cost model of docs/scaling.md: per preset, the compute of one step (measured µs/sample × global batch),
the ring all-reduce time of its gradient buckets over a link, and from them the speed-up and the number of
workers where efficiency falls under 50 % (sections 2, 4, 5 and the summary), plus section 5's options and
the sparse-embedding estimate.

Usage: python3 bench/scaling_model.py US_IMDB US_CHARRNN US_POEMS
(µs/sample of one worker at the preset's fastest thread count: docs/benchmarks.md, "Thread choice").
"""
import sys

GB=1e9
LINKS={'10':(1.25e9,30e-6),'100':(12.5e9,10e-6),'nv':(450e9,5e-6)}
PRE={
 'imdb':dict(batch=64,buckets=[2135208],seq=250,layers=[(32,100)],V=15000,head=False),
 'charrnn':dict(batch=64,buckets=[1090308,33280],seq=50,layers=[(128,128),(128,128)],V=65,head=True),
 'poems':dict(batch=32,buckets=[8985708,25778176],seq=73,layers=[(512,512),(512,512)],V=4379,head=True),
}
def flops(p):
    d=PRE[p]; s=sum(8*H*(E+H) for E,H in d['layers'])
    if d['head']: s+=2*d['layers'][-1][1]*d['V']
    return 3*d['seq']*s
def t(S,N,link):
    B,a=LINKS[link]; return 2*(N-1)/N*S/B + 2*(N-1)*a
def A(p,N,link,buckets=None):
    return sum(t(S,N,link) for S in (buckets or PRE[p]['buckets']))
def headshare(p):
    d=PRE[p]; H=d['layers'][-1][1]; h=2*H*d['V']; return h/(sum(8*H*(E+H) for E,H in d['layers'])+h)
def T_best(T1,N,a): return T1/(3*N)+max(2*T1/(3*N),a)
def T_worst(T1,N,a): return T1/N+a
def T_bucket(p,T1,N,link,buckets=None):
    bk=buckets or PRE[p]['buckets']
    if p!='poems' or len(bk)==1: return T_worst(T1,N,A(p,N,link,bk))
    F=T1/(3*N); BW=2*T1/(3*N); hs=headshare(p)
    t1=t(bk[0],N,link); t2=t(bk[1],N,link)
    end1=F+hs*BW+t1
    return max(F+BW,end1)+t2
def stop(fn,maxN):
    for N in range(2,maxN+1):
        if fn(N)/N<0.5: return N
    return None

def sec5(us):
    out={}
    for p,link in (('imdb','10'),('charrnn','10'),('poems','10'),('imdb','100'),('charrnn','100')):
        d=PRE[p]; T1=us[p]*d['batch']/1e6; mx=d['batch']; bk=d['buckets']
        def row(T1,mx,bk,div=1):
            f=lambda N: T1/(T1/N+A(p,N,link,bk)/div)
            s=stop(f,mx)
            return ('> %d'%mx if s is None else str(s)), f(32)
        opts={'as built':row(T1,mx,bk),'batch x4':row(4*T1,4*mx,bk),'16 bit':row(T1,mx,[b/2 for b in bk]),
              'sync4':row(T1,mx,bk,4),'one bucket':row(T1,mx,[sum(bk)])}
        out[(p,link)]=opts
    for opt in ['as built','batch x4','16 bit','sync4','one bucket']:
        print('%-11s'%opt,' | '.join('%s, S %.1f'%out[k][opt] for k in out))
    return out

# The sparse embedding (section 5): imdb dense parameters all-reduced, touched rows all-gathered.
V=15000
H=sum(1/v for v in range(1,V+1))
def distinct(n,s=1.0):
    Z=sum(1/v**s for v in range(1,V+1))
    return sum(1-(1-(1/v**s)/Z)**n for v in range(1,V+1))
def A_sparse(N,link='10'):
    B,a=LINKS[link]
    r=distinct(16000/N)
    return t(215208,N,link) + (N-1)*r*136/B + (N-1)*a

def main():
    us={'imdb':float(sys.argv[1]),'charrnn':float(sys.argv[2]),'poems':float(sys.argv[3])}
    for p in PRE:
        T1=us[p]*PRE[p]['batch']/1000
        cells=[]
        for N in (2,4,8,16,32,64):
            if N>PRE[p]['batch']: cells.append('—'); continue
            v=T1/N; cells.append('%.3g'%v if v<10 else ('%.1f'%v if v<100 else '%.0f'%v))
        print(p,'T1 %.1f ms'%T1, ' / '.join(cells), 'flops %.1fM -> %.1f GF/s'%(flops(p)/1e6, flops(p)/us[p]/1e3))
    stops={}
    for link in ('10','100'):
        for p in PRE:
            T1=us[p]*PRE[p]['batch']/1e6; mx=PRE[p]['batch']
            cells=[]
            for N in (2,4,8,16,32,64):
                if N>mx: cells.append('refused'); continue
                a=A(p,N,link); cells.append('%.1f / %.1f'%(T1/T_best(T1,N,a),T1/T_worst(T1,N,a)))
            sb=stop(lambda N:T1/T_best(T1,N,A(p,N,link)),mx); sk=stop(lambda N:T1/T_bucket(p,T1,N,link),mx); sw=stop(lambda N:T1/T_worst(T1,N,A(p,N,link)),mx)
            stops[(p,link)]=(sb,sk,sw)
            pk=max((T1/T_worst(T1,N,A(p,N,link)),N) for N in range(1,mx+1))
            E32=(T1/T_worst(T1,min(32,mx),A(p,min(32,mx),link)))/min(32,mx)
            Eb=(T1/T_best(T1,min(32,mx),A(p,min(32,mx),link)))/min(32,mx)
            print(link,p,' | '.join(cells),'| stop',sb,sk,sw,'peak %.1f at %d'%pk, 'E32 worst %.2f best %.2f'%(E32,Eb))
    out=sec5(us)
    # 4x longer step moves stop by
    for k,v in out.items():
        a,b=v['as built'][0],v['batch x4'][0]
        try: print(k,'x4 moves %.2f'%(int(b)/int(a)))
        except: print(k,'x4',a,b)
    T1=us['imdb']*64/1e6
    print('sparse stop', stop(lambda N:T1/(T1/N+A_sparse(N)),64), 'dense', stop(lambda N:T1/(T1/N+A('imdb',N,'10')),64))
    for N in (32,48,64): print('sparse 100', N, stop(lambda N:T1/(T1/N+A_sparse(N,'100')),64), stop(lambda N:T1/(T1/N+A('imdb',N,'100')),64))

if __name__ == "__main__":
    main()
