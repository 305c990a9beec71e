export type Role = 'user' | 'subscriber' | 'admin';
export type SubscriptionStatus = 'active' | 'inactive' | 'trial';
export type AuthProvider = 'password' | 'apple' | 'google';

export interface UserSettings {
  dailyGoal: number;
  reminderEnabled: boolean;
  reminderTime: string;
  emailNotifications: boolean;
  pushNotifications: boolean;
  theme: 'light' | 'dark' | 'auto';
  studyMode: 'flip' | 'quiz' | 'typing';
}

export const DEFAULT_SETTINGS: UserSettings = {
  dailyGoal: 20,
  reminderEnabled: false,
  reminderTime: '19:00',
  emailNotifications: true,
  pushNotifications: true,
  theme: 'auto',
  studyMode: 'flip',
};

export interface UserProfile {
  displayName: string | null;
  bio: string | null;
  avatarUrl: string | null;
  preferredLanguage: string | null;
  nativeLanguage: string | null;
  timezone: string | null;
}

/** A user as the domain sees it: never the password hash. */
export interface User {
  id: string;
  email: string;
  username: string;
  role: Role;
  subscriptionStatus: SubscriptionStatus;
  emailVerified: boolean;
  authProvider: AuthProvider;
  hasPassword: boolean;
  profile: UserProfile;
  settings: UserSettings;
  lastLoginAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}
