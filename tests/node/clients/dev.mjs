// Apollo Client checks and warns only in development: this module is imported first, so
// that its `__DEV__` is on when Apollo's modules are evaluated.
globalThis.__DEV__ = true;
