import { ServiceError } from '#shared/errors.ts';

/** Typed errors of the portal's domain; app/api turns every one into a response in one place. */
export class SignInRequired extends ServiceError {
  constructor(message = 'sign in first') { super(401, message); }
}

export class Forbidden extends ServiceError {
  constructor(message = 'your role in this team does not allow that') { super(403, message); }
}

export class Conflict extends ServiceError {
  constructor(message: string) { super(409, message); }
}

export class Gone extends ServiceError {
  constructor(message: string) { super(410, message); }
}

export { BadRequest, NotFound, ServiceError, TooManyRequests, ValidationFailed, asServiceError, toServiceError } from '#shared/errors.ts';
