import { iso } from '../common/serialize.js';

export interface FileRow {
  id: string;
  org_id: string;
  name: string;
  content_type: string;
  size: number;
  sha256: string;
  status: string;
  purpose: string;
  uploaded_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export function fileView(row: FileRow) {
  return {
    id: row.id,
    name: row.name,
    content_type: row.content_type,
    size: Number(row.size),
    sha256: row.sha256,
    status: row.status,
    purpose: row.purpose,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export type FileView = ReturnType<typeof fileView>;
