"""The wire contract: messages, codecs, validation, error codes and sans-I/O sessions."""
