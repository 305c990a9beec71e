// Checks recorded responses against the public OpenAPI document served by the gateway. ajv 6
// (draft-07) is what node_modules holds; the 3.1 schemas zod-to-openapi writes use no 2020-12-only
// keywords, so draft-07 validation applies as is.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Ajv = require('ajv') as new (o: object) => {
  addSchema(s: object, key: string): void;
  compile(s: object): ((d: unknown) => boolean) & { errors?: unknown[] };
};

export interface Recorded {
  method: string;
  path: string;
  status: number;
  body: unknown;
}

type Doc = {
  paths: Record<
    string,
    Record<string, { responses?: Record<string, { content?: Record<string, unknown> }> }>
  >;
};

const pointer = (...parts: string[]) =>
  parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/**
 * The templated path of the document that matches a concrete path (`/api/x/{id}` for `/api/x/42`):
 * the most specific one, so `/deliveries/replay-failed` is not taken for `/deliveries/{deliveryId}`.
 */
function templateOf(doc: Doc, path: string): string | undefined {
  if (doc.paths[path]) return path;
  const params = (t: string) => (t.match(/\{[^}]+\}/g) ?? []).length;
  return Object.keys(doc.paths)
    .filter((t) =>
      new RegExp(`^${t.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path),
    )
    .sort((a, b) => params(a) - params(b))[0];
}

/**
 * The operations (`METHOD /template`) that got a success answer (2xx) the document lists for them:
 * what a caller can rely on, as opposed to a refusal.
 */
export function documentedSuccesses(doc: Doc, recorded: Array<Omit<Recorded, 'body'>>): string[] {
  const ops = new Set<string>();
  for (const r of recorded) {
    if (r.status < 200 || r.status > 299) continue;
    const template = templateOf(doc, r.path.split('?')[0]!);
    if (template && doc.paths[template]?.[r.method.toLowerCase()]?.responses?.[String(r.status)])
      ops.add(`${r.method} ${template}`);
  }
  return [...ops];
}

/** Validates each recorded response; returns what did not match, which responses had a schema at all, and which matched. */
export function checkAgainstDocument(doc: Doc, recorded: Recorded[]) {
  const ajv = new Ajv({ validateSchema: false, unknownFormats: 'ignore', allErrors: true, schemaId: 'auto' });
  ajv.addSchema(doc, 'openapi');
  const failures: Array<Recorded & { errors: unknown }> = [];
  const checked: string[] = [];
  const passed: string[] = [];
  for (const r of recorded) {
    const template = templateOf(doc, r.path.split('?')[0]!);
    const method = r.method.toLowerCase();
    const response = template && doc.paths[template]?.[method]?.responses?.[String(r.status)];
    const content = response?.content?.['application/json'] as { schema?: { format?: string } } | undefined;
    // a file download (a JSON export) is documented as binary: its bytes are not an API answer
    if (!content || content.schema?.format === 'binary') continue;
    const ref = `openapi#/${pointer('paths', template, method, 'responses', String(r.status), 'content', 'application/json', 'schema')}`;
    const validate = ajv.compile({ $ref: ref });
    checked.push(`${r.method} ${template} ${r.status}`);
    if (!validate(r.body)) failures.push({ ...r, errors: validate.errors });
    else passed.push(`${r.method} ${template} ${r.status}`);
  }
  return { failures, checked, passed };
}
