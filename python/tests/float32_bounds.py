"""How far apart two float32 evaluations of one classifier may be, derived from the arithmetic they do.

The CLI (our fused kernels: AVX-512 or AVX2 products, our own exp) and PyTorch (MKL, oneDNN or OpenBLAS
products, SLEEF's exp) compute the same model in float32 but sum in different orders and approximate the
activations differently, and which order each takes depends on the CPU's instruction set. Their
probabilities differ by rounding that grows with the weights, the text's length and how close the model is
to a tie, so no constant tolerance holds on every machine for every trained run: 1e-6 failed on an AVX2-only
CPU by 3.5e-6, for a run trained on with a learning rate of 1.

A worst-case bound (Wilkinson's running error analysis, every rounding error at its largest and all of the
same sign) holds but is useless here: for these runs it is 10^2-10^3 times the real differences after one
token and grows exponentially with the text (2e6 for 18 tokens of a 2-layer model). So this is the
probabilistic analysis of Higham and Mary ("A New Approach to Probabilistic Rounding Error Analysis", SIAM J.
Sci. Comput. 41(5), 2019), carried through the model to first order: each rounding error is an independent
random variable of mean 0 and |delta| <= u = 2^-24 (variance at most u^2/3), and the model runs once in
float64, which stands for the exact values, with the variance of a float32 evaluation's error beside each
value:
- a sum of n products in any order (with or without FMA): n roundings of partial sums no larger than
  sum|w x|, so variance n u^2 / 3 (sum|w x|)^2 (their sqrt(n) u, not the worst case's n u), plus
  sum w^2 var(x) for the inputs' own errors;
- an activation f(a): f'(a)^2 var(a), plus the implementation's own error (our exp-based sigmoid and tanh,
  ACTIVATION_ERROR at most, taken as uniform) and the rounding of the result;
- the cell update c' = f c + i g and h = o tanh(c'): each input's variance times the other factor squared,
  plus a rounding per operation; mean pooling a sum of T terms; max pooling passes the chosen step's error;
- the head, a sum of width + 1 products; softmax's Jacobian (dp_k/dz_j = p_k (delta_kj - p_j)) and its own
  (classes + 2) roundings.
Two evaluations differ by the difference of two such errors (variance twice one's). The tolerance is LAMBDA
standard deviations of it: for a normal variable the chance of more is 1.5e-23 (and Higham and Mary's
bound for one sum without the normal approximation, 2n exp(-LAMBDA^2 / 2), is 4e-20 for n = 100).
"""

import torch

U = 2.0 ** -24
VAR_ROUND = U * U / 3  # one rounding: uniform in [-u, u] times the value
# Our kernels' sigmoid and tanh (core/engine/src/model/FastMath.h, LstmKernels.cpp): exp to ~2e-7 relative,
# sigmoid = 1 / (1 + exp(-x)) then within 2e-7 s (1 - s) + 2u <= 1.7e-7, tanh = 2 sigmoid(2x) - 1 within twice
# that, and the odd series near 0 within ~1e-7. PyTorch's are within 1-2 ulp. The larger, rounded up.
ACTIVATION_ERROR = 4e-7
VAR_ACTIVATION = ACTIVATION_ERROR ** 2 / 3
LAMBDA = 10.0


def _sum_var(n, magnitude):
    """The variance of the rounding of a sum of n terms whose absolute values add up to `magnitude`."""
    return n * VAR_ROUND * magnitude ** 2


def _direction(x, vx, w_ih, w_hh, b_ih, b_hh):
    """One LSTM direction over x [T, in] with error variances vx: outputs [T, H] and their variances."""
    hidden = w_hh.size(1)
    h = torch.zeros(hidden, dtype=torch.float64)
    c = torch.zeros(hidden, dtype=torch.float64)
    vh = torch.zeros(hidden, dtype=torch.float64)
    vc = torch.zeros(hidden, dtype=torch.float64)
    n = w_ih.size(1) + hidden + 2  # the terms of one gate's sum, both biases included
    outs, variances = [], []
    for t in range(x.size(0)):
        a = w_ih @ x[t] + b_ih + w_hh @ h + b_hh
        magnitude = w_ih.abs() @ x[t].abs() + b_ih.abs() + w_hh.abs() @ h.abs() + b_hh.abs()
        va = _sum_var(n, magnitude) + (w_ih ** 2) @ vx[t] + (w_hh ** 2) @ vh
        ai, af, ag, ao = a.chunk(4)
        vai, vaf, vag, vao = va.chunk(4)
        i, f, g, o = torch.sigmoid(ai), torch.sigmoid(af), torch.tanh(ag), torch.sigmoid(ao)
        vi = (i * (1 - i)) ** 2 * vai + VAR_ACTIVATION + VAR_ROUND * i ** 2
        vf = (f * (1 - f)) ** 2 * vaf + VAR_ACTIVATION + VAR_ROUND * f ** 2
        vg = (1 - g ** 2) ** 2 * vag + VAR_ACTIVATION + VAR_ROUND * g ** 2
        vo = (o * (1 - o)) ** 2 * vao + VAR_ACTIVATION + VAR_ROUND * o ** 2
        c_next = f * c + i * g
        vc = f ** 2 * vc + c ** 2 * vf + i ** 2 * vg + g ** 2 * vi + VAR_ROUND * ((f * c) ** 2 + (i * g) ** 2 + c_next ** 2)
        tc = torch.tanh(c_next)
        vtc = (1 - tc ** 2) ** 2 * vc + VAR_ACTIVATION + VAR_ROUND * tc ** 2
        h = o * tc
        vh = o ** 2 * vtc + tc ** 2 * vo + VAR_ROUND * h ** 2
        c = c_next
        outs.append(h)
        variances.append(vh)
    return torch.stack(outs), torch.stack(variances)


def classify_probability_tolerance(model, ids):
    """How far apart two float32 evaluations of the classifier `model` (lstm_workbench's SequenceModel,
    eval mode) may put any class probability for the token ids `ids` (one text, no padding): LAMBDA
    standard deviations of their difference."""
    sd = {k: v.detach().to(torch.float64).cpu() for k, v in model.state_dict().items()}
    x = sd["embedding.weight"][torch.tensor(ids, dtype=torch.long)]  # looked up, not computed: exact
    vx = torch.zeros_like(x)
    directions = ["", "_reverse"] if model.bidirectional else [""]
    for layer in range(model.lstm.num_layers):
        outs, variances = [], []
        for d in directions:
            p = [sd[f"lstm.{name}_l{layer}{d}"] for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
            if d:  # the backward direction from the text's last token
                o, v = _direction(x.flip(0), vx.flip(0), *p)
                o, v = o.flip(0), v.flip(0)
            else:
                o, v = _direction(x, vx, *p)
            outs.append(o)
            variances.append(v)
        x, vx = torch.cat(outs, 1), torch.cat(variances, 1)
    steps = x.size(0)
    if model.pooling == "last":
        hidden = model.hidden
        feat = torch.cat([x[-1, :hidden], x[0, hidden:]]) if model.bidirectional else x[-1]
        vfeat = torch.cat([vx[-1, :hidden], vx[0, hidden:]]) if model.bidirectional else vx[-1]
    elif model.pooling == "mean":
        feat = x.mean(0)
        vfeat = (vx.sum(0) + _sum_var(steps, x.abs().sum(0))) / steps ** 2 + VAR_ROUND * feat ** 2
    else:
        at = x.argmax(0)
        feat = x.gather(0, at.unsqueeze(0))[0]
        vfeat = vx.gather(0, at.unsqueeze(0))[0]
    w, b = sd["head.weight"], sd["head.bias"]
    z = w @ feat + b
    vz = _sum_var(w.size(1) + 1, w.abs() @ feat.abs() + b.abs()) + (w ** 2) @ vfeat
    probs = torch.softmax(z, 0)
    jacobian = torch.diag(probs) - probs.unsqueeze(1) * probs.unsqueeze(0)  # dp_k / dz_j
    classes = z.numel()
    vp = (jacobian ** 2) @ vz + (classes + 2) * VAR_ROUND * probs ** 2
    return float(LAMBDA * torch.sqrt(2 * vp.max()))
