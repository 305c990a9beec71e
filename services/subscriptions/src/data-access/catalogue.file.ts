import { readFileSync } from 'node:fs';
import { Catalogue } from '../domain/catalogue';

/** Reads and validates the plans/offers file once at boot; a broken file stops the service. */
export function loadCatalogue(file: string): Catalogue {
  const parsed = Catalogue.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`invalid catalogue ${file}: ${parsed.error.message}`);
  return parsed.data;
}
