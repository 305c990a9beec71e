// the one implementation lives in @lingua/http (it also gives reads their ETag)
export { sendSuccessJson } from '@lingua/http';
