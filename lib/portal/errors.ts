import { DomainError } from '#shared/errors.ts';

/** Typed errors of the portal's domain; app/api turns every one into a response in one place. */
export class SignInRequired extends DomainError {
  constructor(message = 'sign in first') {
    super('sign_in_required', message);
  }
}

export class Forbidden extends DomainError {
  constructor(message = 'your role in this team does not allow that') {
    super('forbidden', message);
  }
}

export class Conflict extends DomainError {
  constructor(message: string) {
    super('conflict', message);
  }
}

export class Gone extends DomainError {
  constructor(message: string) {
    super('gone', message);
  }
}

export { BadRequest, NotFound, DomainError, TooManyRequests, ValidationFailed, asDomainError, toDomainError } from '#shared/errors.ts';
