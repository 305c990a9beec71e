import { LANGUAGES } from '@lingua/http';
import {
  REMINDER_TEMPLATE_IDS,
  type ReminderContext,
  eligibleTemplates,
  reminderText,
} from './reminder-templates';

const context: ReminderContext = { streak: 12, dueCards: 34, dailyGoal: 20, reviewedToday: 5 };

describe('study reminder templates', () => {
  it('When any template is rendered in any of the eight languages, Then title and body are filled in, with no placeholder or key left', () => {
    // Arrange
    const wrong: string[] = [];

    // Act
    for (const language of LANGUAGES)
      for (const id of REMINDER_TEMPLATE_IDS) {
        const { title, body } = reminderText(id, context, language);
        for (const text of [title, body])
          if (text.trim() === '' || /[{}]/.test(text) || text.startsWith('notification.'))
            wrong.push(`${language} ${id}: ${text}`);
      }

    // Assert
    expect(wrong).toEqual([]);
  });

  it('When a template carries numbers, Then the user sees their streak, due cards and the reviews left of the goal', () => {
    expect(reminderText('streak', context, 'en').body).toContain('12');
    expect(reminderText('due_cards', context, 'de').body).toContain('34');
    expect(reminderText('goal', context, 'ru').body).toBe('Осталось повторений на сегодня: 15 из 20.');
    expect(reminderText('goal', context, 'en').body).toBe('Reviews left for today: 15 of 20.');
  });

  it('When the context has no streak, no due cards or no goal, Then the templates that would say so are not eligible', () => {
    expect(eligibleTemplates({ streak: 0, dueCards: 0, dailyGoal: 0, reviewedToday: 0 })).toEqual([
      'short',
      'comeback',
    ]);
    expect(eligibleTemplates({ streak: 3, dueCards: 1, dailyGoal: 10, reviewedToday: 2 })).toEqual([
      'streak',
      'due_cards',
      'goal',
      'short',
    ]);
    // the goal already met: nothing left to ask for
    expect(eligibleTemplates({ streak: 3, dueCards: 0, dailyGoal: 10, reviewedToday: 10 })).toEqual([
      'streak',
      'short',
    ]);
  });
});
