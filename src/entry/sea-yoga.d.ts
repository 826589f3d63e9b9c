// yoga-layout for the standalone executable's views asset (scripts/esbuild-views.mjs): its
// default export is bound once loadYogaOnce() has instantiated the WebAssembly.
declare module 'sea:yoga' {
  export function loadYogaOnce(): Promise<void>
}
