// The package as a new user meets it: `npm pack`, installed into a fresh project in a temporary
// folder, then every ```ts snippet of the README type-checked against the installed
// declarations and run by node there, and the commands `beaconkit --help` suggests run there.
//
// No network: a fresh CI machine has just run `npm ci`, which caches package tarballs but not
// the registry's metadata, so an offline `npm install` cannot resolve the version ranges of
// beaconkit's dependencies and theirs. The packed tarball is therefore unpacked where npm would
// put it, and its runtime dependencies are linked to this repository's installed copies (what
// is tested is the package's own files: exports map, declarations, command, docs).
//
// Snippets that need hardware, a cloud or a broker run with the substitutions in SNIPPETS below
// (a replay of the bundled demo recording for the Bluetooth adapter, the simulator for the
// recorder's adapter, the local emulator for the cloud, an embedded broker for MQTT); each
// names the README text it applies to, and a ```ts block without an entry runs exactly as
// written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFile, spawn } from 'node:child_process'
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import ts from 'typescript'
import { startEmulator } from '../src/emulator/emulator.js'
import type { Emulator } from '../src/emulator/emulator.js'
import { startBroker } from '../src/mqtt/broker.js'
import type { RunningBroker } from '../src/mqtt/broker.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const SAMPLE_KEY = '7b4b5ff594fdaf8f9fc7f2b494e400016f461205'
const exec = promisify(execFile)

let dir = ''
let app = ''
let emulator: Emulator | undefined
let broker: RunningBroker | undefined

/** One ```ts block of the README. */
interface Snippet {
  heading: string
  code: string
}

function readmeSnippets(text: string): Snippet[] {
  const snippets: Snippet[] = []
  let heading = ''
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    if (/^#{2,4} /.test(lines[i])) heading = lines[i].replace(/^#+ /, '')
    if (lines[i].trim() !== '```ts') continue
    const start = ++i
    while (i < lines.length && lines[i].trim() !== '```') i++
    snippets.push({ heading, code: lines.slice(start, i).join('\n') })
  }
  return snippets
}

/** The bundled demo recording in virtual time, resolved through the package's exports map. */
const DEMO = `
import { BeaconScanner as __Scanner, ReplaySource as __Replay } from 'beaconkit'
import { fileURLToPath as __path } from 'node:url'
const __demo = (): __Replay => new __Replay(__path(import.meta.resolve('beaconkit/fixtures/demo.jsonl')), { virtual: true })
void __Scanner
`

interface Rule {
  /** Text that identifies the README snippet. */
  match: string
  /** Why it cannot run as written. */
  why: string
  edits?: [string | RegExp, string][]
  prelude?: string
  postlude?: string
  /** What the run must show (stdout), beyond exiting 0 with nothing on stderr. */
  check: (stdout: string) => Promise<void> | void
}

const SNIPPETS: Rule[] = [
  {
    match: 'const scanner = new BeaconScanner()            // the local adapter',
    why: 'scans the Bluetooth adapter: the demo recording stands in for it',
    edits: [['new BeaconScanner()', 'new BeaconScanner({ source: __demo() })']],
    prelude: DEMO,
    postlude: 'await scanner.drain()\nawait scanner.stop()',
    check: (out) => {
      expect(out).toMatch(/^found 0117C5000003 0117C5000003 (immediate|near|far|unknown)$/m)
      expect(out).toMatch(/^gone 0117C5000003$/m)
      expect(out).toMatch(/^\d+ in range$/m)
      expect(out).toMatch(/^0117C50000\d\d \{/m)
    },
  },
  {
    match: 'scanner.events({ signal',
    why: 'continues the snippet before (its scanner); the scanner stops when the demo has played',
    prelude: `${DEMO}\nconst scanner = new __Scanner({ source: __demo() })\nawait scanner.start()\nvoid scanner.drain().then(() => scanner.stop())\n`,
    check: (out) => {
      expect(out).toMatch(/^found \d+$/m)
      expect(out).toMatch(/^gone \d+$/m)
    },
  },
  {
    match: 'const reading = decodeAdvertisement({',
    why: 'prints what its comment promises',
    postlude: 'console.log(JSON.stringify(reading))',
    check: (out) => {
      const reading = JSON.parse(out) as Record<string, unknown>
      expect(reading).toMatchObject({ major: 1, minor: 2, measuredPower: -59, proximity: 'near', frames: ['ibeacon'] })
      expect(reading.proximityUUID).toMatch(/^23A01AF0-/)
      expect(reading.beaconID).toMatch(/^23A01AF0-.*\|1\|2$/)
      expect(reading.accuracy).toBeCloseTo(1.4298, 4)
    },
  },
  {
    match: "Keyring.fromFile('/etc/beaconkit/keys')",
    why: 'reads /etc/beaconkit/keys and scans the adapter: a keys file with the sample key and the demo recording; the expected throw is caught and printed',
    edits: [
      ['/etc/beaconkit/keys', 'keys.txt'],
      ['new BeaconScanner({ keys })', 'new BeaconScanner({ keys, source: __demo() })'],
      [/^parseBroadcastKey\((.*)\)$/m, 'try { parseBroadcastKey($1) } catch (error) { console.log(\'threw\', error) }'],
    ],
    prelude: DEMO,
    postlude: 'await scanner.drain()\nawait scanner.stop()',
    check: (out) => {
      // The line the README's comment shows, as console.log prints it.
      expect(out).toMatch(/^0117C5000005 \{ encrypted: true, keyId: '0001', verified: true \}$/m)
      expect(out).toMatch(/^threw BroadcastKeyError: /m)
      expect(out).toMatch(/code: 'expired'/)
      expect(out).toMatch(/expiresAt: 2015-12-31T16:00:00\.000Z/)
      expect(out).not.toContain('01Y2GLh1')
    },
  },
  {
    match: "new AdvertisementRecorder('site.jsonl'",
    why: "records the adapter for a minute: the simulator's default site for 1.5 s",
    edits: [[/NobleSource/g, 'SimulatedSource'], ['60_000', '1_500']],
    check: async () => {
      const lines = (await readFile(join(app, 'site.jsonl'), 'utf8')).trimEnd().split('\n')
      expect(JSON.parse(lines[0])).toMatchObject({ format: 'beaconkit-advertisements', version: 1 })
      expect(lines.length).toBeGreaterThan(10)
    },
  },
  {
    match: "new ReplaySource('site.jsonl', { virtual: true })",
    why: 'replays what the snippet before recorded; counts what it found',
    edits: [['await scanner.start()', "let found = 0\nscanner.on('found', () => found++)\nawait scanner.start()"]],
    postlude: "console.log('found', found)",
    check: (out) => {
      expect(out).toMatch(/^found ([1-9]\d*)$/m)
    },
  },
  {
    match: 'siteScenario(50)',
    why: 'runs as written',
    check: (out) => {
      const lines = out.trimEnd().split('\n')
      expect(new Set(lines.map((l) => l.split(' ')[0])).size).toBe(50)
      expect(lines.some((l) => l.endsWith(' true'))).toBe(true)
      expect(lines.some((l) => l.endsWith(' plain'))).toBe(true)
    },
  },
  {
    match: "new AccountClient({ baseUrl: 'https://cloud.example.com'",
    why: 'needs a cloud account, a queue folder and the scanner of the tour: the local emulator, a temporary folder, the demo recording; then the shutdown its comment describes',
    edits: [
      ['https://cloud.example.com', 'EMULATOR_URL'],
      ['/var/lib/beaconkit/queue', 'queue'],
    ],
    prelude: `${DEMO}\nconst email = 'tour@example.com'\nconst password = 'tour-password'\nconst scanner = new __Scanner({ source: __demo() })\n`,
    postlude: 'await scanner.start()\nawait scanner.drain()\nawait scanner.stop()\nawait uploader.close()',
    check: () => {
      const uploads = emulator?.store.uploads('tour@example.com') ?? []
      expect(uploads.some((u) => u.beaconMac === '0117C5000003')).toBe(true)
    },
  },
  {
    match: "new MqttPublisher({ url: 'mqtt://127.0.0.1:1883'",
    why: "publishes the tour's scanner to a broker: an embedded broker on a free port, the demo recording; then the shutdown its comment describes. connect() resolves before the broker has answered (a live scan queues until then), and the virtual replay is over in milliseconds, so it waits for the connection first",
    edits: [['mqtt://127.0.0.1:1883', 'BROKER_URL']],
    prelude: `${DEMO}\nconst scanner = new __Scanner({ source: __demo() })\n`,
    postlude: "if (publisher.stats.state !== 'connected') await new Promise((r) => publisher.once('connected', r))\nawait scanner.start()\nawait scanner.drain()\nawait scanner.stop()\nawait publisher.close()\nconsole.log('published', JSON.stringify(publisher.stats.byKind))",
    check: (out) => {
      const byKind = JSON.parse(/^published (.*)$/m.exec(out)?.[1] ?? '{}') as Record<string, number>
      expect(byKind.status).toBeGreaterThanOrEqual(2)
      expect(byKind.retained).toBeGreaterThan(0)
      expect(byKind.event).toBeGreaterThan(0)
    },
  },
  {
    match: 'startMapServer({ scanner, port: 8080 })',
    why: 'serves until shut down: a free port, one request for the page and one for its data, then the shutdown its comment describes',
    edits: [['port: 8080', 'port: 0']],
    postlude: "const page = await fetch(map.url)\nconst snap = (await (await fetch(`${map.url}api/snapshot`)).json()) as { mode: string }\nconsole.log('map', page.status, snap.mode)\nawait map.close()\nawait scanner.stop()",
    check: (out) => {
      expect(out).toMatch(/^map 200 scanner$/m)
    },
  },
  {
    match: 'SiteSimulator.fromJSON(json, { seed: 7 })',
    why: 'runs the demo site on a broker: the embedded broker on a free port; then the shutdown its comment describes',
    edits: [['mqtt://127.0.0.1:1883', 'BROKER_URL']],
    postlude:
      "for (let i = 0; i < 400 && (tracker.beacons().length < 4 || !tracker.beacons().some((b) => b.room !== undefined)); i++) await new Promise((r) => setTimeout(r, 50))\nconsole.log('site fleet', tracker.beacons().length >= 4, sim.truth('kettle', Date.now())?.room)\nawait site.close()\nawait tracker.stop()",
    check: (out) => {
      expect(out).toMatch(/^site fleet true Kitchen$/m)
      expect(out).toMatch(/^0117C5D0000\d in (Kitchen|Living room|Office|Bedroom)$/m)
    },
  },
  {
    match: "new FleetTracker({ url: 'mqtt://127.0.0.1:1883'",
    why: 'subscribes on a broker: the embedded broker on a free port; then the shutdown its comment describes',
    edits: [['mqtt://127.0.0.1:1883', 'BROKER_URL']],
    postlude: "console.log('fleet', tracker.beacons().length, tracker.statusTopic)\nawait tracker.stop()",
    check: (out) => {
      expect(out).toMatch(/^fleet 0 beaconkit\/fleet\/status$/m)
    },
  },
  {
    match: 'new ScannerLocator(scanner, { site })',
    why: "needs a cloud account and a scanner among the map's beacons: the local emulator's demo map, and the simulator playing each placed beacon from where it stands relative to a spot (6, 9) m on the map; then the shutdown",
    edits: [
      ['https://cloud.example.com', 'EMULATOR_URL'],
      ['new BeaconScanner()', 'new BeaconScanner({ source: __source })'],
    ],
    prelude: `import { AccountClient as __Account, E781_MODE as __MODE, SimulatedSource as __Sim, VENDOR_DEFAULT_UUID as __UUID } from 'beaconkit'
const email = 'tour@example.com'
const password = 'tour-password'
const __map = await new __Account({ email, password, baseUrl: 'EMULATOR_URL' }).getMap('demo')
const __source = new __Sim({ virtual: true, durationMs: 20_000, seed: 5, noiseDb: 3, pathLossExponent: 2.2, devices: __map.beacons.map((b, i) => ({
  address: \`c0:de:00:00:\${(16 + i).toString(16)}:01\`, serialNumber: b.mac, hardwareModelName: 'C0', firmwareVersion: '4.1', intervalMs: 200,
  ibeacon: { proximityUUID: __UUID, major: 1, minor: i + 1, measuredPower: -59 }, vendor: [{ frame: 'e781' as const, mode: __MODE.full }],
  distance: Math.hypot(b.PosX * (__map.xScale ?? 1) - 6, b.PosY * (__map.yScale ?? 1) - 9, 2.5 - 1.2),
})) })
`,
    postlude: "await new Promise<void>((r) => __source.once('end', () => r()))\nconsole.log('final', JSON.stringify(locator.position))\nawait scanner.stop()",
    check: (out) => {
      expect(out).toMatch(/^at \d+\.\d \d+\.\d ± \d+\.\d m$/m)
      const final = JSON.parse(/^final (.*)$/m.exec(out)?.[1] ?? '{}') as { x: number; y: number; accuracy: number }
      expect(Math.hypot(final.x - 6, final.y - 9)).toBeLessThan(Math.max(2, final.accuracy))
    },
  },
  {
    match: 'const receiver = await startWebhookServer(',
    why: 'runs as written (the emulator is the platform); checked: the downlink created a task and its event reached the receiver',
    check: (out) => {
      const id = /^tasks \[ (\d+) \]$/m.exec(out)?.[1]
      expect(id).toBeDefined()
      expect(out).toMatch(new RegExp(`^task ${id} done$`, 'm'))
    },
  },
]

function ruleFor(snippet: Snippet): Rule | undefined {
  return SNIPPETS.find((r) => snippet.code.includes(r.match))
}

function prepare(snippet: Snippet): string {
  const rule = ruleFor(snippet)
  let code = snippet.code
  for (const [from, to] of rule?.edits ?? []) {
    const before = code
    code = typeof from === 'string' ? code.split(from).join(to) : code.replace(from, to)
    if (code === before) throw new Error(`README snippet under "${snippet.heading}": the substitution of ${String(from)} no longer applies; update SNIPPETS in test/consumer.test.ts`)
  }
  return `${rule?.prelude ?? ''}\n${code}\n${rule?.postlude ?? ''}\n`.replace(/EMULATOR_URL/g, emulator?.url ?? '').replace(/BROKER_URL/g, broker?.url ?? '')
}

function run(args: string[], options: { untilStdout?: RegExp } = {}): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: app, env: { ...process.env, NODE_OPTIONS: '' } })
    let stdout = ''
    let stderr = ''
    let interrupted = false
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d
      if (options.untilStdout?.test(stdout) === true && !interrupted) {
        interrupted = true
        child.kill('SIGINT')
      }
    })
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
}

const snippets = readmeSnippets(await readFile(join(ROOT, 'README.md'), 'utf8'))

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'beaconkit-consumer-'))
  app = join(dir, 'app')
  await mkdir(join(app, 'snippets'), { recursive: true })
  // What `npm publish` would upload (dist/ was built by `npm test`; prepack is not re-run).
  const packed = await exec('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT })
  const [pack] = JSON.parse(packed.stdout) as { filename: string }[]
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; bin: Record<string, string> }
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }))
  // Unpacked as npm unpacks it (the tarball's package/ folder becomes node_modules/beaconkit),
  // its runtime dependencies linked to this repository's installed copies, its command linked
  // into node_modules/.bin.
  const modules = join(app, 'node_modules')
  await mkdir(join(modules, 'beaconkit'), { recursive: true })
  await exec('tar', ['-xzf', join(dir, pack.filename), '-C', join(modules, 'beaconkit'), '--strip-components=1'])
  for (const dep of Object.keys(pkg.dependencies)) {
    await mkdir(dirname(join(modules, dep)), { recursive: true })
    await symlink(join(ROOT, 'node_modules', dep), join(modules, dep), 'dir')
  }
  await mkdir(join(modules, '.bin'))
  for (const [name, target] of Object.entries(pkg.bin)) {
    await chmod(join(modules, 'beaconkit', target), 0o755)
    await symlink(join('..', 'beaconkit', target), join(modules, '.bin', name))
  }
  // Readable only by its owner, as docs/private-broadcast.md asks of a keys file.
  await writeFile(join(app, 'keys.txt'), `# the public sample key\n${SAMPLE_KEY}\n`, { mode: 0o600 })
  emulator = await startEmulator({ accounts: [{ email: 'tour@example.com', password: 'tour-password' }] })
  broker = await startBroker({ port: 0 })
  for (const [i, snippet] of snippets.entries()) await writeFile(join(app, 'snippets', `${String(i).padStart(2, '0')}.ts`), prepare(snippet))
}, 120_000)

afterAll(async () => {
  await emulator?.close()
  await broker?.close()
  if (dir !== '') await rm(dir, { recursive: true, force: true })
})

describe('the README in a fresh project that installed the packed package', () => {
  it('has snippets, and every substitution names a snippet that exists', () => {
    expect(snippets.length).toBeGreaterThanOrEqual(8)
    for (const rule of SNIPPETS) expect(snippets.some((s) => s.code.includes(rule.match)), rule.match).toBe(true)
  })

  it('type-checks every snippet against the installed declarations (strict, library checks on)', async () => {
    const config = {
      compilerOptions: {
        target: 'ES2022', lib: ['ES2023'], module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true,
        skipLibCheck: false, types: ['node'], typeRoots: [join(ROOT, 'node_modules', '@types')],
      },
      include: ['snippets/*.ts'],
    }
    await writeFile(join(app, 'tsconfig.json'), JSON.stringify(config))
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
    const r = await exec(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app }).catch((e: { stdout: string }) => ({ stdout: e.stdout, failed: true }))
    expect(r.stdout).toBe('')
  }, 60_000)

  it.each(snippets.map((s, i) => [i, s.heading, s] as const))('runs snippet %i (%s)', async (i, _heading, snippet) => {
    const name = String(i).padStart(2, '0')
    const source = await readFile(join(app, 'snippets', `${name}.ts`), 'utf8')
    const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText
    await writeFile(join(app, 'snippets', `${name}.mjs`), js)
    const r = await run([join('snippets', `${name}.mjs`)])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    await ruleFor(snippet)?.check(r.stdout)
  }, 30_000)
})

describe('the commands `beaconkit --help` suggests, run in that project', () => {
  const bin = (): string => join(app, 'node_modules', '.bin', 'beaconkit')

  it('every "Try it" command works (stopped with Ctrl-C once it shows beacons)', async () => {
    const help = await run([bin(), '--help'])
    expect(help.code).toBe(0)
    const tryIt = help.stdout.slice(help.stdout.indexOf('Try it:'))
    const commands = [...tryIt.matchAll(/beaconkit ([^(\n]+?)\s*(?:\(|$)/gm)].map((m) => m[1].split(' '))
    expect(commands.length).toBeGreaterThanOrEqual(2)
    for (const args of commands) {
      const r = await run([bin(), ...args], { untilStdout: /"event":"found"/ })
      expect(r.stderr, args.join(' ')).toBe('')
      expect(r.code, args.join(' ')).toBe(0)
      expect(r.stdout).toMatch(/"event":"found"/)
    }
  }, 60_000)

  it("the replay help's example works", async () => {
    const help = await run([bin(), 'replay', '--help'])
    const example = /^Example: beaconkit (.*?)( \| head)?$/m.exec(help.stdout)
    expect(example).not.toBeNull()
    const r = await run([bin(), ...(example as RegExpExecArray)[1].split(' ')])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout.split('\n').filter((l) => l.includes('"event":"gone"')).length).toBeGreaterThan(3)
  })
})
