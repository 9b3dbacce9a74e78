// Creates records fast: autocannon sends exactly `amount` copies of one POST (spec as JSON in argv[2]) and prints the statuses.
import autocannon from "autocannon";

const spec = JSON.parse(process.argv[2]);

// `{n}` in the path cycles over `cycle.count` ids from `cycle.from`, to spread children over parents.
let n = 0;
const requests = spec.requests.map((request) => {
  if (request.cycle === undefined) return request;
  const { from, count } = request.cycle;
  return {
    ...request,
    setupRequest: (req) => ({ ...req, path: request.path.replace("{n}", String(from + (n++ % count))) }),
  };
});

const result = await autocannon({
  url: spec.url,
  connections: Math.min(spec.connections, spec.amount),
  pipelining: spec.pipelining,
  amount: spec.amount,
  requests,
});

const statuses = {};
for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = count;
console.log(JSON.stringify({ statuses, errors: result.errors, timeouts: result.timeouts }));
