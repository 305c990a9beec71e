import { ERROR_CATALOGUE } from '@lingua/errors';
import { CATALOGUES, LANGUAGES, formatPrice, negotiateLanguage, translate } from './i18n';

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('message catalogues (src/messages/*.json)', () => {
  it('When a language is offered, Then its catalogue has every key of the English one, no other, none empty, with the same placeholders', () => {
    const english = CATALOGUES.en;
    const wrong: string[] = [];
    for (const language of LANGUAGES) {
      const catalogue = CATALOGUES[language];
      for (const key of Object.keys(english)) {
        const text = catalogue[key];
        if (text === undefined) wrong.push(`${language}: ${key} missing`);
        else if (text.trim() === '') wrong.push(`${language}: ${key} empty`);
        else if (placeholders(text).join() !== placeholders(english[key]!).join())
          wrong.push(
            `${language}: ${key} placeholders ${placeholders(text)} ≠ ${placeholders(english[key]!)}`,
          );
      }
      for (const key of Object.keys(catalogue))
        if (!(key in english)) wrong.push(`${language}: ${key} unknown`);
    }
    expect(wrong).toEqual([]);
  });

  it('When an error code exists, Then every catalogue names it', () => {
    const missing = Object.keys(ERROR_CATALOGUE).filter((code) => !(`error.${code}` in CATALOGUES.en));
    expect(missing).toEqual([]);
  });

  it('When Accept-Language names a region, weights or an unknown language, Then the best offered one is chosen, English otherwise', () => {
    const of = (header?: string) =>
      negotiateLanguage({ headers: header ? { 'accept-language': header } : {} });
    expect(of('es-ES')).toBe('es');
    expect(of('fr-CA,fr;q=0.9,en;q=0.5')).toBe('fr');
    expect(of('de;q=0.2, ru;q=0.8')).toBe('ru');
    expect(of('pt-BR')).toBe('pt');
    expect(of('ja')).toBe('en');
    expect(of()).toBe('en');
  });

  it('When a message is translated and a price formatted, Then parameters fill in and Intl writes the language', () => {
    expect(translate('notification.welcome.title', { username: 'ana' }, 'es')).toBe(
      '¡Te damos la bienvenida, ana!',
    );
    expect(formatPrice(999, 'USD', 'de')).toBe('9,99\u00a0$'); // a no-break space, as German writes it
    expect(formatPrice(999, 'EUR', 'en')).toBe('€9.99');
  });
});
