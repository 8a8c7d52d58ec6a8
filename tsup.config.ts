import { cpSync } from 'node:fs'
import { defineConfig } from 'tsup'

export default defineConfig([
  {
    // The library: ESM + CJS with declarations behind the exports map.
    entry: { index: 'src/index.ts' },
    format: ['esm', 'cjs'],
    // Members marked @internal (the scanner's hooks into Decoder) stay out of the public types.
    dts: { compilerOptions: { stripInternal: true } },
    sourcemap: true,
    clean: true,
    target: 'node20',
    // noble is an optional peer loaded lazily; never bundle it.
    external: ['@abandonware/noble'],
    // The live map finds its page files from import.meta.url, which CommonJS lacks without the shim.
    shims: true,
    // The live map's page (plain ES modules, CSS, HTML) ships as files, served as they are.
    onSuccess: async () => {
      cpSync('src/web/page', 'dist/web/page', { recursive: true })
    },
  },
  {
    // The positioner's worker thread: a file of its own, which the library finds next to itself
    // (src/positioning/positioner-thread.ts). ESM only: a worker is started from its file.
    entry: { 'positioner-worker': 'src/positioning/positioner-worker.ts' },
    format: ['esm'],
    sourcemap: true,
    target: 'node20',
  },
  {
    // The command line: one ESM file with a shebang, importing the library build.
    entry: { 'cli/main': 'src/cli/main.ts' },
    format: ['esm'],
    sourcemap: true,
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
    external: ['@abandonware/noble'],
  },
])
