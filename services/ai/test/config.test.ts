import { ConfigError, parseConfig } from '@lingua/config';
import { aiFeatureEnv } from '../src/config';

describe('AI configuration', () => {
  it('When nothing is set, Then the spec limits and the local provider apply', () => {
    expect(parseConfig(aiFeatureEnv, {})).toMatchObject({
      AI_PROVIDER: 'local',
      AI_FREE_GENERATIONS_PER_DAY: 50,
      AI_FREE_LOOKUPS_PER_WINDOW: 5,
      AI_LOOKUP_WINDOW_MINUTES: 180,
      AI_ANALYSIS_CACHE_HOURS: 24,
    });
  });

  it('When the openai provider points at api.openai.com without a key, Then the configuration is refused naming OPENAI_API_KEY', () => {
    expect(() => parseConfig(aiFeatureEnv, { AI_PROVIDER: 'openai' })).toThrow(ConfigError);
    expect(() => parseConfig(aiFeatureEnv, { AI_PROVIDER: 'openai' })).toThrow(/OPENAI_API_KEY/);
    expect(
      parseConfig(aiFeatureEnv, { AI_PROVIDER: 'openai', OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' })
        .AI_PROVIDER,
    ).toBe('openai');
  });

  it('When a value is out of range, Then it is refused naming the variable', () => {
    expect(() => parseConfig(aiFeatureEnv, { AI_PROVIDER_MAX_RETRIES: '9' })).toThrow(
      /AI_PROVIDER_MAX_RETRIES/,
    );
    expect(() => parseConfig(aiFeatureEnv, { AI_PROVIDER: 'magic' })).toThrow(/AI_PROVIDER/);
  });
});
