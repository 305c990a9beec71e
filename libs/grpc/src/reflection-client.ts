import path from 'node:path';
import { credentials, loadPackageDefinition, type ServiceError } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';

interface ReflectionResponse {
  list_services_response?: { service: { name: string }[] };
  file_descriptor_response?: { file_descriptor_proto: Buffer[] };
  error_response?: { error_code: number; error_message: string };
}

interface ReflectionStream {
  write(request: Record<string, unknown>): void;
  end(): void;
  cancel(): void;
  on(event: 'data', listener: (res: ReflectionResponse) => void): this;
  on(event: 'error', listener: (err: ServiceError) => void): this;
  on(event: 'end', listener: () => void): this;
}

type ReflectionClient = new (
  address: string,
  creds: ReturnType<typeof credentials.createInsecure>,
) => { ServerReflectionInfo(options: { deadline: number }): ReflectionStream; close(): void };

let clientType: ReflectionClient | undefined;

function reflectionClient(): ReflectionClient {
  if (clientType === undefined) {
    const root = path.dirname(require.resolve('@grpc/reflection/package.json'));
    const definition = loadSync('grpc/reflection/v1/reflection.proto', {
      includeDirs: [path.join(root, 'build/proto')],
      keepCase: true,
      oneofs: true,
    });
    const loaded = loadPackageDefinition(definition) as unknown as {
      grpc: { reflection: { v1: { ServerReflection: ReflectionClient } } };
    };
    clientType = loaded.grpc.reflection.v1.ServerReflection;
  }
  return clientType;
}

/**
 * What `grpcurl list` and `grpcurl describe` ask, in Node: the services a server offers through
 * reflection (grpc.reflection.v1), and the serialized FileDescriptorProtos that define a symbol.
 * Rejects with the gRPC error (UNIMPLEMENTED when the server has no reflection).
 */
export async function reflectServer(
  address: string,
  symbol?: string,
  timeoutMs = 5_000,
): Promise<{ services: string[]; files: Buffer[] }> {
  const Client = reflectionClient();
  const client = new Client(address, credentials.createInsecure());
  try {
    return await new Promise((resolve, reject) => {
      const stream = client.ServerReflectionInfo({ deadline: Date.now() + timeoutMs });
      const result = { services: [] as string[], files: [] as Buffer[] };
      stream.on('data', (res) => {
        if (res.list_services_response)
          result.services = res.list_services_response.service.map((s) => s.name);
        if (res.file_descriptor_response) result.files = res.file_descriptor_response.file_descriptor_proto;
        if (res.error_response) reject(new Error(res.error_response.error_message));
      });
      stream.on('error', reject);
      stream.on('end', () => resolve(result));
      stream.write({ list_services: '' });
      if (symbol !== undefined) stream.write({ file_containing_symbol: symbol });
      stream.end();
    });
  } finally {
    client.close();
  }
}
