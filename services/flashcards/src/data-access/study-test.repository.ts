import type { Connection } from 'mongoose';
import type { StudyTest, StudyTestRepository } from '../domain/ports';
import { AppError } from '@lingua/errors';
import { isDuplicateKeyError } from '@lingua/mongo';
import { type StudyTestDoc, studyTestModel } from './study-test.model';

export type { StudyTest, StudyTestRepository };

const toTest = ({ _id, ...rest }: StudyTestDoc): StudyTest => ({ id: _id, ...rest });

export function studyTestRepository(connection: Connection): StudyTestRepository {
  const Tests = studyTestModel(connection);
  return {
    /** Throws CONFLICT (409) when the unique index already holds this test. */
    async insert(test: StudyTest): Promise<StudyTest> {
      const { id, ...rest } = test;
      try {
        await Tests.collection.insertOne({ _id: id, ...rest } as never);
      } catch (err) {
        if (isDuplicateKeyError(err))
          throw new AppError('CONFLICT', 'This test was already recorded for this card today', {
            cause: err,
          });
        throw err;
      }
      return test;
    },
    async forDay(userId: string, studyDate: string): Promise<StudyTest[]> {
      const docs = await Tests.find({ userId, studyDate })
        .sort({ completedAt: 1 })
        .limit(1000)
        .lean<StudyTestDoc[]>();
      return docs.map(toTest);
    },
    async deleteAllOfUser(userId: string): Promise<number> {
      return (await Tests.deleteMany({ userId })).deletedCount;
    },
  };
}
