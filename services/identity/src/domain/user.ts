export interface User {
  id: string;
  email: string;
  username: string;
  role: 'user' | 'subscriber' | 'admin';
  subscriptionStatus: 'active' | 'inactive' | 'trial';
  createdAt: Date;
}
