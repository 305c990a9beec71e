// One MongoDB user per service, readWrite on its own database only (docs/adr/0019). Run by mongosh
// as the root user: by the mongo image at its first start (docker-compose.yml mounts it into
// /docker-entrypoint-initdb.d), or by an operator against a managed MongoDB
// (`mongosh "$ADMIN_URL" deploy/infra-auth/mongo-init-users.js` with the passwords in the environment).
// Each service's MONGO_URL then carries its user (and pins w=majority):
// mongodb://<service>:<password>@host/?authSource=lingua_<service>&w=majority.
// Safe to run again: an existing user gets the password and roles given now.
/* global db, print */
const services = ['identity', 'flashcards', 'subscriptions', 'ai', 'notifications'];
for (const service of services) {
  const pwd = process.env[`${service.toUpperCase()}_MONGO_PASSWORD`];
  if (!pwd) throw new Error(`${service.toUpperCase()}_MONGO_PASSWORD is not set`);
  const dbName = process.env[`${service.toUpperCase()}_MONGO_DB`] || `lingua_${service}`;
  const target = db.getSiblingDB(dbName);
  const roles = [{ role: 'readWrite', db: dbName }];
  if (target.getUser(service)) target.updateUser(service, { pwd, roles });
  else target.createUser({ user: service, pwd, roles });
  print(`user ${service}: readWrite on ${dbName}`);
}
