import { z } from 'zod';
import { AppError } from './app-error';
import { parseInput } from './parse-input';

describe('parseInput', () => {
  const schema = z.object({ email: z.email(), username: z.string().min(3) }).strict();

  it('When input is valid, Then the parsed value is returned', () => {
    expect(parseInput(schema, { email: 'a@b.co', username: 'abc' })).toEqual({
      email: 'a@b.co',
      username: 'abc',
    });
  });

  it('When fields fail, Then VALIDATION_ERROR maps each field to an array of messages', () => {
    expect.assertions(4);
    try {
      parseInput(schema, { email: 'nope', username: 'a' });
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('VALIDATION_ERROR');
      expect((err as AppError).status).toBe(400);
      expect(Object.keys((err as AppError).details!).sort()).toEqual(['email', 'username']);
    }
  });

  it('When an unknown field such as a Mongo operator is sent to a strict schema, Then it is refused', () => {
    expect(() => parseInput(schema, { email: 'a@b.co', username: 'abc', $where: '1' })).toThrow(AppError);
  });
});
