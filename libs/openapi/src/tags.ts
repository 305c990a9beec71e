/** The areas of the API, one tag each, described for the docs and for generators' groupings. */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  auth: 'Sign-up, log-in, tokens and social log-in: Group A under /api/v1/auth (auth envelope), Group C under /api/auth (catalogue envelope). Access tokens last 15 minutes, refresh tokens 7 days and rotate on use.',
  users: 'The signed-in user: profile, settings, avatar and account deletion (Group C).',
  flashcards:
    'Group B and Group C cards on one path, /api/flashcards. Responses carry both groups’ fields; updates accept any subset of the fields and validate what is present.',
  'flashcard-sets': 'Group C sets of cards, with their cards.',
  learning: 'Group C spaced repetition: due cards, reviews, learning sessions, settings and statistics.',
  study: 'Group B study days: tests completed and recorded.',
  achievements: 'Group C achievements and their rewards.',
  'export-import': 'Cards as CSV or JSON files, out and in.',
  AI: 'Text and sentence analysis, word look-up, generation and images (Group C), within the caller’s quota.',
  notifications: 'In-app notifications, device registration and preferences (Group C).',
  webhooks: 'Signed outgoing webhooks: endpoints, deliveries and their verification.',
  subscriptions:
    'Group A store subscriptions: plans, receipts, status, feature access and store notifications.',
  dialogues: 'Group A practice dialogues; the advanced ones need an active subscription.',
  admin: 'Administration of subscriptions (admin role).',
  'api-keys': 'API keys for internal callers (admin role).',
  status: 'The API’s state and the caller’s remaining rate budget.',
  health: 'Liveness, readiness and the health of every part.',
};
