//! The tests that count allocations, in a process of their own: `counting` installs a global
//! allocator that counts every allocation of the process, so no other test may run beside them.

mod alloc;
mod copy;
mod counting;
