import CNcursesw

/// Mouse button masks, which are macros in C.
enum Mouse {
    static func isWheelUp(_ buttons: UInt) -> Bool { tdl_mouse_is_wheel_up(buttons) != 0 }
    static func isWheelDown(_ buttons: UInt) -> Bool { tdl_mouse_is_wheel_down(buttons) != 0 }
}
