// The oclif manifest embedded into the standalone executable by scripts/package.mjs.
declare module 'sea:oclif-manifest' {
  const manifest: {version: string; commands: Record<string, unknown>}
  export default manifest
}
