"""Five by Five's house rules: one plugin module each, all off unless a table enables them."""
