/** What a test sees of an HTTP answer: status, headers and the body parsed as JSON when it is JSON. */
export interface HttpReply {
  status: number;
  headers: Headers;
  // Tests walk bodies freely; each assertion states the shape it expects.
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface HttpCallOptions {
  headers?: Record<string, string>;
  /** Sent as JSON (a string is sent as it is, to test malformed bodies). */
  body?: unknown;
  /** Sent untouched, with no content type added (multipart, binary). */
  raw?: NonNullable<RequestInit['body']>;
}

/** fetch for tests: JSON in and out; non-JSON bodies come back as text, binary ones as a Buffer. */
export async function httpCall(
  base: string,
  method: string,
  path: string,
  options: HttpCallOptions = {},
): Promise<HttpReply> {
  const headers: Record<string, string> = { ...options.headers };
  let body: RequestInit['body'] = options.raw;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${base}${path}`, { method, headers, ...(body !== undefined && { body }) });
  const buffer = Buffer.from(await res.arrayBuffer());
  const type = res.headers.get('content-type') ?? '';
  let parsed: unknown = buffer;
  if (type.includes('json') || type.startsWith('text/') || buffer.length === 0) {
    const text = buffer.toString('utf8');
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: res.status, headers: res.headers, body: parsed };
}
