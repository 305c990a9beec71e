/** CEFR levels in order; numeric levels are derived on the fly (spec: none are stored). */
export const CEFR_LEVELS = ['A1', 'A2', 'B1', 'B2', 'C1', 'C2'] as const;
export type CefrLevel = (typeof CEFR_LEVELS)[number];

export const DIFFICULTIES = ['beginner', 'intermediate', 'advanced'] as const;
export type Difficulty = (typeof DIFFICULTIES)[number];

const NAMES: Record<CefrLevel, string> = {
  A1: 'Beginner',
  A2: 'Elementary',
  B1: 'Intermediate',
  B2: 'Upper intermediate',
  C1: 'Advanced',
  C2: 'Proficient',
};

/** 1 (A1) … 6 (C2). */
export const levelNumber = (level: CefrLevel) => CEFR_LEVELS.indexOf(level) + 1;
export const levelName = (level: CefrLevel) => NAMES[level];
export const isCefr = (v: unknown): v is CefrLevel => CEFR_LEVELS.includes(v as CefrLevel);

/** Group C difficulty of a CEFR level: A → beginner, B → intermediate, C → advanced. */
export function difficultyOfLevel(level: CefrLevel): Difficulty {
  return level.startsWith('A') ? 'beginner' : level.startsWith('B') ? 'intermediate' : 'advanced';
}

/** The level information shown with a card (next-review). */
export function levelInfo(level: string | null) {
  if (!isCefr(level)) return { level: null, levelNumber: null, levelName: null };
  return { level, levelNumber: levelNumber(level), levelName: levelName(level) };
}
