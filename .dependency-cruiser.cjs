// The import rules `npm test` checks (`npm run deps`): no import cycle anywhere, and the folders import
// downward only. bin/ composes; lib/ (the rig's CDK constructs) and target-stack/ (the target's stack) are
// building blocks it composes, target-stack/ may use lib/'s shared CDK helpers, lib/ never the target.
// The code that runs on generators and in the target stands alone: it never imports the orchestrator or the CDK.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: move what the modules share down into one module that imports none of them.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'lib-not-to-target-stack',
      severity: 'error',
      comment: 'lib/ is imported by target-stack/; composing both is bin/\'s job.',
      from: { path: '^lib/' },
      to: { path: '^target-stack/' },
    },
    {
      name: 'building-blocks-not-to-bin',
      severity: 'error',
      comment: 'bin/ is the CDK entry point: nothing imports it.',
      from: { pathNot: '^(bin|test)/' },
      to: { path: '^bin/' },
    },
    {
      name: 'no-orchestrator-from-cdk-or-runtime',
      severity: 'error',
      comment: 'scripts/ is the orchestrator on the operator\'s machine: the CDK code and the code that runs on generators or in the target never import it.',
      from: { path: '^(lib|bin|target-stack|load-generators)/' },
      to: { path: '^scripts/' },
    },
    {
      name: 'runtime-code-stands-alone',
      severity: 'error',
      comment: 'What runs on a generator (load-generators/) or in the target (target-stack/app/) imports only its own folder and packages.',
      from: { path: '^(load-generators|target-stack/app)/' },
      to: { path: '^(lib|bin|scripts|test)/' },
    },
    {
      name: 'no-tests-from-code',
      severity: 'error',
      comment: 'Code never imports a test.',
      from: { pathNot: '^test/' },
      to: { path: '^test/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|cdk\\.out|runs|test-artifacts)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    // Type-only imports count: a cycle of types is still a cycle a reader has to untangle.
    moduleSystems: ['cjs', 'es6'],
  },
};
