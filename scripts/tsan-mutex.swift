// ThreadSanitizer on Linux does not see Swift's Synchronization.Mutex (it locks with futexes
// in code built without TSan): this program only touches its array under one Mutex, yet
//   swiftc -sanitize=thread scripts/tsan-mutex.swift -o /tmp/m && /tmp/m
// reports a "Swift access race". `make tsan` reports the same inside tdl's Mutex users.
import Synchronization
import Foundation
final class Box: Sendable { let m = Mutex<[Int]>([]) }
let b = Box()
let t = Thread { for i in 0..<20000 { b.m.withLock { $0.append(i) } } }
t.start()
for i in 0..<20000 { b.m.withLock { $0.append(i) } }
while b.m.withLock({ $0.count }) < 40000 { usleep(1000) }
print("done", b.m.withLock { $0.count })
