import { EnvelopeOf, Int, Nested, PageOf, Text, Time } from '../common/response-fields.js';

/** What the API and the kadu_files_* tools answer for a file's metadata (fileView). */
export class FileResponse {
  @Text()
  id: string;

  @Text()
  name: string;

  @Text()
  content_type: string;

  @Int({ description: 'Bytes', minimum: 0 })
  size: number;

  @Text('SHA-256 of the bytes, hex')
  sha256: string;

  @Text('pending_upload, ready, …')
  status: string;

  @Text('input or output')
  purpose: string;

  @Time()
  created_at: string;

  @Time()
  updated_at: string;
}

export class FileCreatedResponse {
  @Nested(() => FileResponse)
  file: FileResponse;

  @Text('PUT the bytes here (presigned), then confirm the file')
  upload_url: string;

  @Time()
  upload_expires_at: string;
}

export class DownloadResponse {
  @Text('GET the bytes here (presigned)')
  url: string;

  @Time()
  expires_at: string;
}

export const FileEnvelope = EnvelopeOf(FileResponse, 'FileEnvelope');
export const FilePage = PageOf(FileResponse, 'FilePage');
export const FileCreatedEnvelope = EnvelopeOf(FileCreatedResponse, 'FileCreatedEnvelope');
export const DownloadEnvelope = EnvelopeOf(DownloadResponse, 'DownloadEnvelope');
