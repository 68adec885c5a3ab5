import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { GridFSBucket, type Db, type GridFSBucketWriteStream, type ObjectId } from 'mongodb';
import { EXPORT_FILES_BUCKET } from '@dv/contracts';

// The file store (GridFS by default): writers push strings or buffers; a write waits when the
// upload stream's buffer is full (backpressure), so memory stays bounded whatever the row count,
// and the bytes are counted as they go (file_size is exact without reading the file back).

export interface FileSink {
  readonly fileId: ObjectId;
  /** Bytes written so far. */
  readonly bytes: number;
  write(chunk: string | Buffer): Promise<void>;
  /** A Writable for libraries that pipe (pdfkit, yazl); its bytes are counted too. */
  readonly stream: Writable;
  finish(): Promise<number>;
  abort(): Promise<void>;
}

export const exportBucket = (db: Db, chunkSizeBytes?: number) => new GridFSBucket(db, { bucketName: EXPORT_FILES_BUCKET, ...(chunkSizeBytes ? { chunkSizeBytes } : {}) });

export function openSink(db: Db, fileName: string, contentType: string, metadata: Record<string, unknown>, chunkSizeBytes: number): FileSink {
  const upload: GridFSBucketWriteStream = exportBucket(db, chunkSizeBytes).openUploadStream(fileName, { metadata: { ...metadata, content_type: contentType } });
  let bytes = 0;
  let failed: Error | null = null;
  let drained: Promise<void> | null = null;
  upload.on('error', (err) => {
    failed = err;
  });
  // Counting every byte that reaches the upload stream, from our writes and from piped libraries alike.
  const write = upload.write.bind(upload);
  upload.write = ((chunk: string | Buffer, ...rest: unknown[]) => {
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof upload.write;
  return {
    fileId: upload.id as ObjectId,
    get bytes() {
      return bytes;
    },
    stream: upload,
    async write(chunk) {
      if (failed) throw failed;
      // Writes made while the stream is full share one wait for its 'drain' (once() rejects on
      // 'error' itself): one listener pair however many writers wait. Racing a second
      // once(upload, 'error') left a listener behind at every wait (MaxListenersExceededWarning).
      if (!upload.write(chunk)) {
        drained ??= once(upload, 'drain').then(
          () => {
            drained = null;
          },
          (err: unknown) => {
            drained = null;
            throw err;
          },
        );
        await drained;
      }
      if (failed) throw failed;
    },
    async finish() {
      if (failed) throw failed;
      if (!upload.writableEnded) upload.end();
      if (!upload.writableFinished) await once(upload, 'finish');
      return bytes;
    },
    async abort() {
      if (!upload.destroyed) await upload.abort().catch(() => undefined);
    },
  };
}

/** Removes a file (an expired export, or a crashed attempt's partial upload); a missing one is fine. */
export async function deleteFile(db: Db, fileId: ObjectId): Promise<void> {
  await exportBucket(db)
    .delete(fileId)
    .catch((err: Error) => {
      if (!/FileNotFound|not found/i.test(err.message)) throw err;
    });
}
