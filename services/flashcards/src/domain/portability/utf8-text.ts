import { MalformedFileError } from './portable-card';

/** Decodes a byte stream as UTF-8 text piece by piece (a character split across chunks is kept whole). */
export async function* utf8Text(content: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const decode = (chunk?: Uint8Array) => {
    try {
      return chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
    } catch {
      throw new MalformedFileError('The file is not valid UTF-8 text');
    }
  };
  for await (const chunk of content) {
    const text = decode(chunk);
    if (text) yield text;
  }
  const last = decode();
  if (last) yield last;
}
