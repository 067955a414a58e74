"""lstm_workbench: open LSTM Workbench run folders in PyTorch (python/README.md)."""

from .errors import RunError
from .formats import FORMAT_VERSION, RunFormatWarning
from .infer import Classification, classify, generate
from .model import SequenceModel
from .run import MetricsTable, Run, Validation, load_run
from .save import optimizer_state_dict, optimizer_tensors, save_run
from .vocab import EncodedBatch, Vocabulary, tokenize_chars, tokenize_words

__all__ = ["load_run", "Run", "RunError", "RunFormatWarning", "FORMAT_VERSION", "generate", "classify",
           "Classification", "Validation", "MetricsTable", "SequenceModel", "Vocabulary", "EncodedBatch",
           "tokenize_words", "tokenize_chars", "save_run", "optimizer_state_dict",
           "optimizer_tensors"]
__version__ = "0.1.0"
