"""Lucky Draw's house rules: one plugin module each."""
