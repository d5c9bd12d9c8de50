"""CEL selector checks (CELxxx): what the API server rejects and what the scheduler trips over."""
