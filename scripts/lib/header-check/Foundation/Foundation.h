/* Empty: the header check needs only the C declarations of the Swift-emitted header. */
