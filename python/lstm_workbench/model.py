"""The app's two model shapes as one torch module, with the app's parameter names (SequenceModel.cpp)."""

import torch
from torch import nn


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

    def forward(self, inputs, lengths=None):
        """Language model: inputs [B, T] -> logits [B, T, V]. Classifier: inputs [B, T] (padded at the end)
        and lengths [B] -> logits [B, C]."""
        if self.task == "lm":
            return self.step(inputs)[0]
        if lengths is None:
            lengths = torch.full((inputs.size(0),), inputs.size(1), dtype=torch.long)
        # Not packed: the app runs the padding through the LSTM too (the backward direction starts at the
        # padded end), so packing would give other numbers than the run was trained and scored with.
        outputs, _ = self.lstm(self.embedding(inputs))
        return self.head(self.dropout(self._pool(outputs, lengths)))

    def step(self, inputs, state=None):
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
