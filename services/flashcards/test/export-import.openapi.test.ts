import { createApiDocs } from '@lingua/openapi';
import { ACHIEVEMENT_ROUTE_DOCS } from '../src/entry-points/http/achievements.routes';
import { EXPORT_IMPORT_ROUTE_DOCS } from '../src/entry-points/http/export-import.routes';

describe('API document of achievements, export and import', () => {
  it('When the routes are registered with @lingua/openapi, Then the document lists each with its parameters and bodies', () => {
    const docs = createApiDocs('flashcards');
    for (const doc of [...ACHIEVEMENT_ROUTE_DOCS, ...EXPORT_IMPORT_ROUTE_DOCS]) docs.route(doc);
    const document = docs.document() as unknown as {
      paths: Record<
        string,
        Record<
          string,
          {
            parameters?: { name: string }[];
            requestBody?: { content: Record<string, unknown> };
            responses: Record<string, unknown>;
          }
        >
      >;
    };

    expect(Object.keys(document.paths).sort()).toEqual([
      '/api/achievements',
      '/api/achievements/{achievementId}/claim',
      '/api/export/cards',
      '/api/import/cards',
    ]);
    expect(document.paths['/api/export/cards']!.get!.parameters!.map((p) => p.name).sort()).toEqual([
      'cardIds',
      'format',
      'setId',
    ]);
    expect(Object.keys(document.paths['/api/export/cards']!.get!.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '404', '429']),
    );
    expect(Object.keys(document.paths['/api/import/cards']!.post!.requestBody!.content)).toEqual([
      'multipart/form-data',
    ]);
    expect(
      document.paths['/api/achievements/{achievementId}/claim']!.post!.parameters!.map((p) => p.name),
    ).toEqual(['achievementId']);
  });
});
