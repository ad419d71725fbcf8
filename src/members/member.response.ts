import { EnvelopeOf, PageOf, Text, Time } from '../common/response-fields.js';

export class MemberResponse {
  @Text()
  id: string;

  @Text()
  email: string;

  @Text()
  name: string;

  @Text('viewer, operator, admin or owner')
  role: string;

  @Text()
  status: string;

  @Time()
  created_at: string;

  @Time()
  updated_at: string;
}

export const MemberEnvelope = EnvelopeOf(MemberResponse, 'MemberEnvelope');
export const MemberPage = PageOf(MemberResponse, 'MemberPage');
