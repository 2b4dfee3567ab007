// A Stryker ignorer (stryker.config.mjs): no mutants inside a log call. What a log line says is
// not behaviour a test should pin (an emptied message or a dropped field is a "survivor" that
// tells nothing), and each would cost a test run. The code around the call is still mutated,
// a removed call included (the block it sits in is emptied).

const LOG_METHODS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);
const LOGGERS = new Set(['log', 'logger']);

/** `logger.warn(...)`, `this.logger?.info(...)`, `this.deps.logger.error(...)`, `request.log.warn(...)`, `log.child(...).info(...)`. */
function isLogCall(node) {
  if (node.type !== 'CallExpression' && node.type !== 'OptionalCallExpression') return false;
  const callee = node.callee;
  if (callee.type !== 'MemberExpression' && callee.type !== 'OptionalMemberExpression') return false;
  if (callee.property.type !== 'Identifier' || !LOG_METHODS.has(callee.property.name)) return false;
  return namesLogger(callee.object);
}

function namesLogger(node) {
  if (node.type === 'Identifier') return LOGGERS.has(node.name);
  if (node.type === 'MemberExpression' || node.type === 'OptionalMemberExpression') return node.property.type === 'Identifier' && LOGGERS.has(node.property.name);
  if (node.type === 'CallExpression' || node.type === 'OptionalCallExpression') return node.callee.type === 'MemberExpression' && namesLogger(node.callee.object);
  return false;
}

export const strykerPlugins = [
  {
    kind: 'Ignore',
    name: 'LogCalls',
    value: {
      shouldIgnore(path) {
        return isLogCall(path.node) ? 'a log line: its wording and fields are not behaviour under test' : undefined;
      },
    },
  },
];
