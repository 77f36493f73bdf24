import { MemoryEventStore } from '../../store/log/memory-event-store.js';
import { eventStoreContract } from './event-store-suite.js';

eventStoreContract('in memory', () => ({ store: new MemoryEventStore(), dispose: () => undefined }));
