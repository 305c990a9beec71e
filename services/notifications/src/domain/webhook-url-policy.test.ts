import { isPublicAddress, webhookUrlProblem } from './webhook-url-policy';

const resolveTo = (addresses: string[]) => async () => addresses;
const strict = (addresses: string[] = ['93.184.216.34']) => ({
  allowPrivate: false,
  resolve: resolveTo(addresses),
});

describe('webhook URL policy', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fe80::1',
    'fc00::1',
    '::ffff:127.0.0.1',
    '224.0.0.1',
  ])('When the address is %s, Then it is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700::1111'])(
    'When the address is %s, Then it is public',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );

  it.each([
    ['ftp://example.com/hook', 'must use http or https'],
    ['file:///etc/passwd', 'must use http or https'],
    ['not a url', 'must be an absolute URL'],
    ['https://user:pass@example.com/hook', 'must not contain credentials'],
    [`https://example.com/${'a'.repeat(2100)}`, 'must be at most 2048 characters'],
    ['http://127.0.0.1:8080/hook', 'must not point at a private, loopback or link-local address'],
    ['http://[::1]/hook', 'must not point at a private, loopback or link-local address'],
    [
      'http://169.254.169.254/latest/meta-data',
      'must not point at a private, loopback or link-local address',
    ],
  ])('When the URL is %s, Then it is refused: %s', async (url, reason) => {
    expect(await webhookUrlProblem(url, strict())).toBe(reason);
  });

  it('When a host name resolves to a private address, Then it is refused', async () => {
    expect(
      await webhookUrlProblem('https://internal.example.com/hook', strict(['93.184.216.34', '10.0.0.5'])),
    ).toBe('must not point at a private, loopback or link-local address');
  });

  it('When a host name does not resolve, Then it is refused', async () => {
    const failing = { allowPrivate: false, resolve: async () => Promise.reject(new Error('ENOTFOUND')) };
    expect(await webhookUrlProblem('https://nowhere.invalid/hook', failing)).toBe('host does not resolve');
  });

  it('When a host name resolves to public addresses only, Then it is accepted', async () => {
    expect(await webhookUrlProblem('https://hooks.example.com/lingua', strict())).toBeNull();
  });

  it('When private targets are allowed by configuration, Then loopback is accepted but other schemes are not', async () => {
    const lax = { allowPrivate: true, resolve: resolveTo([]) };
    expect(await webhookUrlProblem('http://127.0.0.1:9999/hook', lax)).toBeNull();
    expect(await webhookUrlProblem('gopher://127.0.0.1/', lax)).toBe('must use http or https');
  });
});
