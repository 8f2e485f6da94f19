/**
 * Refusals in words a person acts on, pure and testable: a sentence with the next step, never a Node
 * internal ("fetch failed: connect ECONNREFUSED"), and which field of a form it is about, so the
 * form shows it next to that field.
 */
import { DeviceApiError } from '../../shared/device-bridge.ts';
import type { CodedMessage } from '../../shared/errors.ts';

const NEW_INVITE = 'On a device already in the account open Devices → Add a device for a new one, and paste it here.';

/** What a network failure means, when `text` is one (Node's and fetch's words); else null. */
export function networkWords(text: string): string | null {
  if (/ECONNREFUSED/i.test(text)) return 'Nothing answered at that address: check it, and that the backend is running there.';
  if (/ENOTFOUND|EAI_AGAIN|getaddrinfo/i.test(text)) return 'That host name could not be found: check the spelling of the address.';
  if (/ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT|timed? ?out/i.test(text)) return 'That address did not answer in time: check it and the network.';
  if (/ECONNRESET|socket hang up|other side closed/i.test(text)) return 'The connection was cut off: try again in a moment.';
  if (/CERT|self[- ]signed|certificate/i.test(text))
    return "The backend's certificate is not trusted by this device: check the address, or its certificate.";
  if (/fetch failed|network|EHOSTUNREACH|ENETUNREACH/i.test(text))
    return 'The backend could not be reached: check the address and the network.';
  return null;
}

/** A message as a sentence: a capital first letter and a full stop. */
export function asSentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return trimmed;
  const capital = trimmed[0]!.toUpperCase() + trimmed.slice(1);
  return /[.!?…]$/.test(capital) ? capital : `${capital}.`;
}

/** The message of a failed device call (a thrown error or anything else), as it came. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A failed device call as a code and its message (a bridge refusal keeps its code; anything else is `internal`). */
export function failureOf(error: unknown): CodedMessage {
  return { code: error instanceof DeviceApiError ? error.code : 'internal', message: errorMessage(error) };
}

/** Any refusal in words: a network failure explained, else the device's sentence. */
export function plainMessage(failure: Pick<CodedMessage, 'message'>): string {
  return networkWords(failure.message) ?? asSentence(failure.message);
}

/** What an invite's refusal says, with where to get a new one. */
export function inviteWords(failure: CodedMessage): string {
  switch (failure.code) {
    case 'invite_expired':
      return `This invite has expired. ${NEW_INVITE}`;
    case 'invite_used':
      return `This invite was used already: each works once. ${NEW_INVITE}`;
    case 'invite_truncated':
      return `This invite is cut short: copy all of it again (from its first line to its last), or make a new one. ${NEW_INVITE}`;
    case 'invite_invalid':
    case 'invite_malformed':
      return `This is not a Baton invite: copy the whole invite again. ${NEW_INVITE}`;
    default:
      return `${asSentence(failure.message)} ${NEW_INVITE}`;
  }
}

export type EnrollmentField = 'backend' | 'invite' | 'name' | 'form';

/** Which field of the set-up forms a refusal is about. */
export function enrollmentField(failure: CodedMessage): EnrollmentField {
  if (failure.code.startsWith('invite_')) return 'invite';
  if (failure.code === 'name_required' || failure.code === 'invalid_name') return 'name';
  if (networkWords(failure.message) !== null || failure.code === 'unreachable' || failure.code === 'backend_unreachable') return 'backend';
  return 'form';
}

/** A set-up refusal in words for the field it is about (a backend that answered at none of an invite's addresses says so itself). */
export function enrollmentWords(failure: CodedMessage): string {
  if (failure.code === 'backend_unreachable') return asSentence(failure.message);
  return enrollmentField(failure) === 'invite' ? inviteWords(failure) : plainMessage(failure);
}

export type WorkspaceField = 'workspace' | 'provider' | 'form';

/** Which field of New session a refusal is about. */
export function newSessionField(failure: CodedMessage): WorkspaceField {
  if (/repository|workspace|folder|path/i.test(failure.code)) return 'workspace';
  if (/provider|permission/i.test(failure.code) || failure.code === 'invalid_argument') return 'provider';
  return 'form';
}

/** What a New session refusal says, with the next step. */
export function newSessionWords(failure: CodedMessage): string {
  if (failure.code === 'not_a_repository' && !/git init/.test(failure.message))
    return `${asSentence(failure.message)} Pick a folder that is a git repository, or make this one one with \`git init\`.`;
  return plainMessage(failure);
}
