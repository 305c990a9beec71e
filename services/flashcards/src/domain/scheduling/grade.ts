/** How well an answer went, independent of the API that reported it. */
export type Grade = 'again' | 'hard' | 'good' | 'easy';

export const isCorrect = (grade: Grade) => grade !== 'again';

/** Group B confidence: 0 = wrong, 1 = right, 2 = right and easy (spec: 0 wrong, 1 or 2 right). */
export function gradeFromConfidence(confidence: 0 | 1 | 2): Grade {
  return confidence === 0 ? 'again' : confidence === 1 ? 'good' : 'easy';
}

/** Group C rating 1-5: 1-2 wrong (blackout, wrong), 3 hard, 4 good, 5 easy; wrong below 3 as in SM-2. */
export function gradeFromRating(rating: 1 | 2 | 3 | 4 | 5): Grade {
  if (rating <= 2) return 'again';
  return rating === 3 ? 'hard' : rating === 4 ? 'good' : 'easy';
}
