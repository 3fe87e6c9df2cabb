// pdf-lib's single-file ES module build: the same API as the package's entry point, which is CommonJS
// spread over some 200 files (loading that took 157 ms and 24 MiB on each render thread, this 52 ms
// and 12 MiB).
declare module 'pdf-lib/dist/pdf-lib.esm.min.js' {
  export * from 'pdf-lib';
}
