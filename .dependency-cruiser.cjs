// The layers of /work/shared/ARCHITECTURE.md ("imports point down only"), checked by `npm run lint:deps`:
// adapters/cli → actors → adapters → store → bus, actors → machines → bus; web → bus; no import cycles anywhere.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'A loop of imports: one of its files belongs lower down, or the shared part in a file of its own.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'bus-is-the-floor',
      severity: 'error',
      comment: 'bus/ (event catalogue, the bus, the HTTP API shapes) imports no other Tern folder.',
      from: { path: '^bus/' },
      to: { path: '^(actors|adapters|machines|store|web|skills|tests|bench)/' },
    },
    {
      name: 'machines-import-only-bus',
      severity: 'error',
      comment: 'machines/ are pure: bus/ types and xstate; every effect is provided by the actor hosting them.',
      from: { path: '^machines/' },
      to: { path: '^(actors|adapters|store|web|tests|bench)/' },
    },
    {
      name: 'store-below-actors-and-adapters',
      severity: 'error',
      comment: 'store/ is the disk: it imports bus/ (and pure machines/), never what runs above it.',
      from: { path: '^store/' },
      to: { path: '^(actors|adapters|web|tests|bench)/' },
    },
    {
      name: 'adapters-import-down',
      severity: 'error',
      comment:
        'adapters/ turn the outside world into bus events and back; only adapters/cli (the front door) wires actors ' +
        'and runs machines: the host of a machine is an actor (actors/mcp runs the MCP server machine).',
      from: { path: '^adapters/', pathNot: '^adapters/cli/' },
      to: { path: '^(actors|adapters/cli|machines|web|tests|bench)/' },
    },
    {
      name: 'actors-below-the-front-door',
      severity: 'error',
      comment: 'actors/ run below adapters/cli, which composes them.',
      from: { path: '^actors/' },
      to: { path: '^(adapters/cli|web|tests|bench)/' },
    },
    {
      name: 'the-gateway-supervises',
      severity: 'error',
      comment: 'actors/gateway/ is the supervisor: it starts cron, runtime, evolution…; they never import it back.',
      from: { path: '^actors/', pathNot: '^actors/(gateway|cluster)/' },
      to: { path: '^actors/gateway/' },
    },
    {
      name: 'the-cluster-member-hosts-a-gateway',
      severity: 'error',
      comment: 'actors/cluster/ runs a gateway per member; no other actor imports it.',
      from: { path: '^actors/', pathNot: '^actors/cluster/' },
      to: { path: '^actors/cluster/' },
    },
    {
      name: 'web-imports-only-bus',
      severity: 'error',
      comment: 'web/ is browser code: it imports bus/ (event types, the HTTP API shapes) and nothing of the server.',
      from: { path: '^web/' },
      to: { path: '^(actors|adapters|machines|store|tests|bench)/' },
    },
    {
      name: 'no-test-code-in-the-product',
      severity: 'error',
      from: { pathNot: '^(tests|bench)/' },
      to: { path: '^tests/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|web/dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
