// A development mail sink for `npm start`: an SMTP server (smtp-server, the package the notification
// tests receive mail with) on the port the notifications service sends to, printing each message's
// recipient, subject and links, so verification and password-reset links can be followed locally
// without a real mail server. Nothing is stored; nothing leaves the machine.
const { SMTPServer } = require('smtp-server');
const { simpleParser } = require('mailparser');

/** @returns {Promise<{ port: number, mails: object[], close(): Promise<void> } | undefined>} undefined when the port is taken */
function startMailSink({ port, host = '127.0.0.1', onMail = () => undefined }) {
  const mails = [];
  const server = new SMTPServer({
    authOptional: true,
    closeTimeout: 500,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          const text = parsed.text ?? '';
          const mail = {
            to: parsed.to?.text ?? '',
            subject: parsed.subject ?? '',
            links: [...new Set(text.match(/https?:\/\/\S+/g) ?? [])],
            text,
          };
          mails.push(mail);
          onMail(mail);
          callback();
        })
        .catch(callback);
    },
  });
  return new Promise((resolve, reject) => {
    server.once('error', (err) => (err.code === 'EADDRINUSE' ? resolve(undefined) : reject(err)));
    server.listen(port, host, () =>
      resolve({
        port: server.server.address().port,
        mails,
        close: () => new Promise((r) => server.close(r)),
      }),
    );
  });
}

module.exports = { startMailSink };
