import type { RunningService } from '@lingua/bootstrap';
import { API_DOCS_PATH } from '@lingua/openapi';
import { startFlashcards, stopFlashcards } from './support';

// The fragment the running service serves: built from the same declarations its router runs.
let service: RunningService;

beforeAll(async () => {
  ({ service } = await startFlashcards());
});

afterAll(async () => {
  await stopFlashcards(service);
});

describe('API document of achievements, export and import', () => {
  it('When the service serves its fragment, Then it lists each route with its parameters and bodies', async () => {
    const document = (await (await fetch(`${service.httpUrl}${API_DOCS_PATH}`)).json()) as {
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

    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/api/achievements',
        '/api/achievements/{achievementId}/claim',
        '/api/export/cards',
        '/api/import/cards',
      ]),
    );
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
