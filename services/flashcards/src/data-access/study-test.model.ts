import { type Connection, type Model, Schema } from 'mongoose';
import type { StudyTest } from '../domain/ports';

/** A Group B study test taken on a card (one question type on one study day). */
export type StudyTestDoc = Omit<StudyTest, 'id'> & { _id: string };

const schema = new Schema<StudyTestDoc>(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    flashcardId: { type: String, required: true },
    testType: { type: String, required: true },
    studyDate: { type: String, required: true },
    isCorrect: { type: Boolean, required: true },
    completedAt: { type: Date, required: true },
  },
  { collection: 'study_tests', versionKey: false },
);

export function studyTestModel(connection: Connection): Model<StudyTestDoc> {
  return (
    (connection.models.StudyTest as Model<StudyTestDoc> | undefined) ??
    connection.model<StudyTestDoc>('StudyTest', schema)
  );
}
