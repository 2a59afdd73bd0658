// A real OpenID provider for the tests: the certified npm oidc-provider on 127.0.0.1, with one
// confidential client (imaxe: the browser's authorization code and the CLI's device code, RFC
// 8628, whose verification page is the provider's own) and a few people whose `groups` claim
// the sign-in maps to teams.
// Run as a child process: node oidc-provider.mjs PORT REDIRECT_URL KEY_FILE; prints "ready" when
// it listens. KEY_FILE holds the private JWK it signs with: a test restarts the provider with
// another key to rotate it. Its own login page takes any password (devInteractions).
import fs from 'node:fs';
import Provider from 'oidc-provider';

const [port, redirect, keyFile] = process.argv.slice(2);
const key = JSON.parse(fs.readFileSync(keyFile, 'utf8'));
const alg = key.kty === 'EC' ? 'ES256' : 'RS256';

// Who may sign in: login name -> claims.
const people = {
  ana: { email: 'ana@corp.test', name: 'Ana Platform', groups: ['ml-engineers', 'everyone'] },
  bo: { email: 'bo@corp.test', name: 'Bo Admin', groups: ['imaxe-admins', 'ml-engineers', 'everyone'] },
  cy: { email: 'cy@corp.test', name: 'Cy Outsider', groups: ['everyone'] },
};

const provider = new Provider(`http://127.0.0.1:${port}`, {
  clients: [
    {
      client_id: 'imaxe',
      client_secret: 'imaxe-test-client-secret',
      redirect_uris: [redirect],
      grant_types: ['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
      id_token_signed_response_alg: alg,
    },
  ],
  jwks: { keys: [key] },
  scopes: ['openid', 'email', 'profile', 'groups'],
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'], groups: ['groups'] },
  // The profile, email and groups claims ride in the ID token itself, as imaxe reads them there.
  conformIdTokenClaims: false,
  pkce: { required: () => true },
  features: { devInteractions: { enabled: true }, deviceFlow: { enabled: true } },
  async findAccount(ctx, id) {
    const p = people[id];
    if (!p) return undefined;
    return { accountId: id, claims: async () => ({ sub: id, email: p.email, email_verified: true, name: p.name, groups: p.groups }) };
  },
});
provider.listen(Number(port), '127.0.0.1', () => console.log('ready'));
