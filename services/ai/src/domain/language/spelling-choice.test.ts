import { editCost, likeliestIntended, soundKey } from './spelling-choice';

const unknown = () => false;

describe('the likeliest intended word of a misspelling', () => {
  it.each([
    // Hunspell's own order or frequency alone chose the right-hand word before
    ['es', 'nueba', ['buena', 'nueva', 'nuera', 'nueza'], 'nueva'], // b and v sound alike
    ['ru', 'хлеп', ['хлоп', 'хлев', 'слеп', 'шлеп', 'хлеб', 'хлюп', 'лепех'], 'хлеб'], // final devoicing
    ['ru', 'пляш', ['шляп', 'пляши', 'пляшу', 'пляс', 'плюш', 'пляж'], 'пляж'],
    ['pt', 'messa', ['meça', 'mesas', 'nessa', 'mesa', 'essa', 'massa'], 'mesa'], // a doubled letter
    ['it', 'favre', ['fave', 'fare', 'favare', 'favore', 'faure'], 'favore'], // a letter left out
    // two slips away: Hunspell does not offer it, the frequent forms do
    ['ru', 'балшой', ['балкой', 'балдой'], 'большой'],
    ['fr', 'musik', ['musicos'], 'musique'],
    // frequency still decides between equal slips, and English keeps its choices
    ['en', 'polcies', ['policies', 'polices', 'police'], 'policies'],
    ['en', 'recieved', ['received', 'relieved', 'receives'], 'received'],
    ['de', 'Hauss', ['Haus', 'Hause', 'Hausse'], 'Haus'],
  ])('%s "%s" → %s', (language, typed, suggestions, intended) => {
    expect(likeliestIntended(language, typed, suggestions, unknown)).toBe(intended);
  });

  it('When the analyser knows one rare suggestion and not another, Then the known one wins ("mangaient")', () => {
    const known = (w: string) => w === 'mangeaient';
    expect(likeliestIntended('fr', 'mangaient', ['magnaient', 'mangeaient', 'maniaient'], known)).toBe(
      'mangeaient',
    );
  });

  it('When a capitalised word is corrected from the frequent forms, Then the correction keeps the capital', () => {
    expect(likeliestIntended('ru', 'Балшой', [], unknown)).toBe('Большой');
  });

  it('When nothing is close, Then there is no suggestion', () => {
    expect(likeliestIntended('de', 'xqzvbw', [], unknown)).toBeUndefined();
  });
});

describe('edit costs and sound keys', () => {
  it('counts a left-out letter cheaper than an added one, and a swap as one slip', () => {
    expect(editCost('favore', 'favre')).toBeCloseTo(0.8);
    expect(editCost('fare', 'favre')).toBeCloseTo(1);
    expect(editCost('grande', 'grnade')).toBeCloseTo(0.8);
    expect(editCost('abc', 'xyz', 1)).toBe(Infinity);
  });

  it('maps the spellings that sound alike to one key', () => {
    expect(soundKey('es', 'cocina')).toBe(soundKey('es', 'cosina'));
    expect(soundKey('es', 'mañana')).not.toBe(soundKey('es', 'manana'));
    expect(soundKey('ru', 'большой')).toBe(soundKey('ru', 'балшой'));
    expect(soundKey('de', 'Straße')).toBe(soundKey('de', 'strasse'));
    expect(soundKey('fr', 'très')).toBe(soundKey('fr', 'tres'));
  });
});
