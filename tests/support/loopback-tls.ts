// A self-signed certificate for 127.0.0.1 (made once with openssl, valid until 2126): trusted by nobody, so only
// a process told to trust it (NODE_EXTRA_CA_CERTS) accepts it.
import { writeFileSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export const TLS_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg09o/8ZdListCmkba
QpyKKOykmQXqKNmPh2skKIGIPq6hRANCAATAT0Nmy2CEykcVYcYU0mYBKQFsnnRI
s1/sm0V4f2beRfi/o/PDT0cBsjkjTDT/6JnrczazIrSw3cqShWwEFFiW
-----END PRIVATE KEY-----`;

export const TLS_CERT = `-----BEGIN CERTIFICATE-----
MIIBkDCCATagAwIBAgIUZ7uMMLgoKMcHU8gj1rYZ62g+ADowCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyMjEyNTk1MloYDzIxMjYxMDI5
MTI1OTUyWjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAATAT0Nmy2CEykcVYcYU0mYBKQFsnnRIs1/sm0V4f2beRfi/o/PDT0cB
sjkjTDT/6JnrczazIrSw3cqShWwEFFiWo2QwYjAdBgNVHQ4EFgQUfxF6bUjlJfgw
EbnXeuvnux2aTSkwHwYDVR0jBBgwFoAUfxF6bUjlJfgwEbnXeuvnux2aTSkwDwYD
VR0TAQH/BAUwAwEB/zAPBgNVHREECDAGhwR/AAABMAoGCCqGSM49BAMCA0gAMEUC
ICcaEyOAJ3cCKhleX71Nl+kcw9DiGQE7wc4hX1ubHQ24AiEAs/Owcw8/5WvxB8bY
ffXlNPPh18ivLssyHj/Feyt6E2c=
-----END CERTIFICATE-----`;

/** Writes the certificate where `NODE_EXTRA_CA_CERTS` can name it. */
export function writeTrustedCert(dir: string): string {
  const file = join(dir, 'loopback-ca.pem');
  writeFileSync(file, TLS_CERT);
  return file;
}

export interface TlsServer {
  /** `https://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

export async function startTlsServer(listener: RequestListener): Promise<TlsServer> {
  const server: Server = createServer({ key: TLS_KEY, cert: TLS_CERT }, listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
