/**
 * The layering of DESIGN.md section 1, checked by `npm run lint` (dependency-cruiser): data
 * flows one way, so a lower layer never imports a higher one, and no two files depend on each
 * other. Type-only imports count: a cycle of types is still two files that cannot be read apart.
 */
const PURE = '^src/(frames|secure|decode|util)/|^src/(reading|advertisement)[.]ts$'
const STATEFUL = '^src/(range|cloud|mqtt|fleet|web|developer)/|^src/scanner/'

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'Two modules that import each other (directly or round a loop) cannot be understood or tested apart.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'decoding-is-pure',
      comment: 'Bytes in, reading out: decoding, frames and keys know nothing of sources, range state, the scanner, the cloud or the CLI.',
      severity: 'error',
      from: { path: PURE },
      to: { path: `${STATEFUL}|^src/sources/|^src/cli/` },
    },
    {
      name: 'sources-deliver-only',
      comment: 'Sources deliver advertisements; decoding state, the range table, the scanner and the cloud are not their business.',
      severity: 'error',
      from: { path: '^src/sources/' },
      to: { path: `${STATEFUL}|^src/cli/` },
    },
    {
      name: 'range-is-state-only',
      comment: 'The range table holds beacons and their expiry (DESIGN.md 2): it is fed readings; sources, the scanner that wires it, and every sink above are not its business.',
      severity: 'error',
      from: { path: '^src/range/' },
      to: { path: '^src/(sources|scanner|cloud|queue|mqtt|fleet|web|cli|developer|gateway|simulation|positioning)/' },
    },
    {
      name: 'scanner-below-its-sinks',
      comment: 'The scanner feeds sinks (uploader, MQTT publisher, map server) through ScannerSink; it never imports one of them.',
      severity: 'error',
      from: { path: '^src/scanner/' },
      to: { path: '^src/(cloud|queue|mqtt|fleet|web|cli|developer|gateway|simulation|emulator)/' },
    },
    {
      name: 'queue-below-its-users',
      comment: 'The durable queue (DESIGN.md 2) keeps records for the uploader and the MQTT publisher alike; it knows neither of them.',
      severity: 'error',
      from: { path: '^src/queue/' },
      to: { path: '^src/(sources|scanner|range|cloud|mqtt|fleet|web|cli|developer|gateway|simulation|emulator|transport)/' },
    },
    {
      name: 'positioning-is-pure',
      comment: 'Positioning is a pure engine (DESIGN.md 1): no sources, transports or I/O, and the Site lives here, so it never imports the fleet (positioning ↛ fleet).',
      severity: 'error',
      from: { path: '^src/positioning/' },
      to: { path: '^src/(sources|cloud|mqtt|web|cli|developer|fleet|simulation)/|^src/scanner/|^node:(fs|net|http|https|dgram|child_process)$' },
    },
    {
      name: 'simulation-below-fleet',
      comment: 'The simulated site makes advertisements from a Site (DESIGN.md 2): the fleet runs it, it never reaches up to the fleet, MQTT, the map or the CLI.',
      severity: 'error',
      from: { path: '^src/simulation/' },
      to: { path: '^src/(fleet|mqtt|web|cli|cloud|developer)/' },
    },
    {
      name: 'developer-is-platform-side',
      comment: 'The developer client and webhook receiver talk to the platform (DESIGN.md 1, "platform"): they share the cloud transport but know nothing of scanning, MQTT or the fleet.',
      severity: 'error',
      from: { path: '^src/developer/' },
      to: { path: '^src/(sources|range|frames|secure|decode|mqtt|fleet|positioning|web|cli)/|^src/scanner/' },
    },
    {
      name: 'transport-is-below-the-clients',
      comment: 'The HTTP transport both platform clients share (DESIGN.md 2): it knows nothing of the account client, the uploader, the developer client or the emulator.',
      severity: 'error',
      from: { path: '^src/transport/' },
      to: { path: '^src/(cloud|queue|developer|emulator|mqtt|fleet|web|cli|range|sources|simulation|positioning)/' },
    },
    {
      name: 'only-the-cli-runs-the-emulator',
      comment: 'The platform emulator sits above cloud/ and developer/ (DESIGN.md 2): only the CLI and the public index reach it.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(cli|emulator)/|^src/index[.]ts$' },
      to: { path: '^src/emulator/' },
    },
    {
      name: 'nothing-below-the-gateway-root',
      comment: 'src/gateway/ is the composition root (DESIGN.md 2): it wires the layers below; only the CLI and the public index may import it.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(cli|gateway)/|^src/index[.]ts$' },
      to: { path: '^src/gateway/' },
    },
    {
      name: 'cli-ui-draws-only',
      comment: 'cli/ui/ draws what it is given (tables, the screen, JSON lines): it runs no command and starts nothing.',
      severity: 'error',
      from: { path: '^src/cli/ui/' },
      to: { path: '^src/cli/(?!ui/)|^src/(gateway|mqtt|cloud|queue|web|developer|emulator|simulation)/' },
    },
    {
      name: 'the-config-layer-loads-lazily',
      comment: 'The config model loads zod and the YAML parser: outside src/config/ it is imported only with import() or for its types, so a run without a config file never loads them.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/config/' },
      to: { path: '^src/config/(schema|load|values|example)[.]ts$', dependencyTypesNot: ['dynamic-import', 'type-only'] },
    },
    {
      name: 'metrics-for-the-root-web-and-cli',
      comment: 'The metrics (src/metrics/) read the running parts at scrape time; only the composition root, the servers that serve them (web) and the CLI import them.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(metrics|gateway|web|cli)/' },
      to: { path: '^src/metrics/' },
    },
    {
      name: 'metrics-read-below',
      comment: 'The metrics read the scanner, sources, MQTT publisher, uploader and fleet tracker; nothing above what they read (the root, the servers, the CLI) nor beside it.',
      severity: 'error',
      from: { path: '^src/metrics/' },
      to: { path: '^src/(gateway|web|cli|emulator|developer|simulation|transport|queue|positioning)/' },
    },
    {
      name: 'inputs-feed-the-fleet-from-outside',
      comment: 'src/inputs/ turns foreign nodes into gateways (issue 27): it sits beside the gateway root, which starts it; only the root, the CLI and the public index import it, and it never reaches up to them, the fleet or the map.',
      severity: 'error',
      from: { path: '^src/inputs/' },
      to: { path: '^src/(gateway|cli|fleet|web|config)/' },
    },
    {
      name: 'only-the-root-runs-the-inputs',
      comment: 'The foreign-input bridge is started by startFleet (DESIGN.md 2: one composition root).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(cli|gateway|inputs)/|^src/index[.]ts$' },
      to: { path: '^src/inputs/' },
    },
    {
      name: 'nothing-imports-the-cli',
      comment: 'The command line sits on top of the library; nothing below it may import it.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Count `import type` too, so type-only cycles are reported.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
}
