"""The app's two model shapes as one torch module, with the app's parameter names (SequenceModel.cpp)."""

from typing import Optional, Tuple

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

PAD_ID = 0  # <pad>, the vocabulary's id 0 (Vocabulary.cpp)


class SequenceModel(nn.Module):
    """Language model: Embedding -> LSTM x L -> Dropout -> Linear, logits at every step.
    Classifier: Embedding -> (Bi)LSTM x L -> last/mean/max pooling -> Dropout -> Linear.

    The attribute names (embedding, lstm, dropout, head) are the app's, so a run's safetensors loads with
    load_state_dict as it is."""

    def __init__(self, task, vocab_size, outputs, embedding, hidden, layers, bidirectional=False, dropout=0.0,
                 pooling="last"):
        super().__init__()
        if task not in ("lm", "classify"):
            raise ValueError(f"task: expected 'lm' or 'classify', found {task!r}")
        if pooling not in ("last", "mean", "max"):
            raise ValueError(f"pooling: expected last, mean or max, found {pooling!r}")
        self.task = task
        self.hidden = hidden
        self.pooling = pooling
        # The app ignores bidirectional for a language model (it could not generate left to right).
        self.bidirectional = task == "classify" and bool(bidirectional)
        self.embedding = nn.Embedding(vocab_size, embedding)
        self.lstm = nn.LSTM(embedding, hidden, num_layers=layers, batch_first=True,
                            bidirectional=self.bidirectional, dropout=dropout if layers > 1 else 0.0)
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(hidden * (2 if self.bidirectional else 1), outputs)

    def forward(self, inputs, lengths: Optional[torch.Tensor] = None):
        """Language model: inputs [B, T] -> logits [B, T, V]. Classifier: inputs [B, T], padded at the end
        with <pad> (id 0), and lengths [B] (when absent: each row's ids other than <pad>, at least 1, as the
        ONNX export infers them) -> logits [B, C]. A row gives the same logits whatever padding follows it."""
        if self.task == "lm":
            return self.step(inputs, None)[0]
        if lengths is None:
            lengths = (inputs != 0).sum(1)  # PAD_ID, as a literal for torch.jit.script
        lengths = lengths.to(dtype=torch.long).clamp(1, inputs.size(1))
        # Packed, as the app runs a padded row: the backward direction starts at each row's last real token.
        packed = pack_padded_sequence(self.embedding(inputs), lengths.cpu(), batch_first=True,
                                      enforce_sorted=False)
        outputs, _ = pad_packed_sequence(self.lstm(packed)[0], batch_first=True, total_length=inputs.size(1))
        return self.head(self.dropout(self._pool(outputs, lengths)))

    @torch.jit.export
    def step(self, inputs, state: Optional[Tuple[torch.Tensor, torch.Tensor]] = None):
        """Language model with a carried LSTM state (h, c), for generation: inputs [B, T] -> logits
        [B, T, V] and the state after the last step."""
        outputs, state = self.lstm(self.embedding(inputs), state)
        return self.head(self.dropout(outputs)), state

    def _pool(self, outputs, lengths):
        b, t, width = outputs.shape
        length = lengths.to(device=outputs.device, dtype=torch.long).clamp(1, t)
        if self.pooling == "last":
            index = (length - 1).view(b, 1, 1).expand(b, 1, width)
            last = outputs.gather(1, index).squeeze(1)
            if width == self.hidden:
                return last
            # The backward direction's summary of the whole sequence is at the first step.
            return torch.cat([last[:, :self.hidden], outputs[:, 0, self.hidden:]], 1)
        mask = (torch.arange(t, device=outputs.device).unsqueeze(0) < length.unsqueeze(1)).unsqueeze(2)
        if self.pooling == "mean":
            return (outputs * mask.to(outputs.dtype)).sum(1) / length.unsqueeze(1).to(outputs.dtype)
        return outputs.masked_fill(~mask, float("-inf")).amax(1)


def model_from_config(config, vocab_size, outputs):
    m = config["model"]
    return SequenceModel(config["task"], vocab_size, outputs, m["embedding"], m["hidden"], m["layers"],
                         m.get("bidirectional", False), m.get("dropout", 0.0), m.get("pooling", "last"))
